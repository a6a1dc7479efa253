"""Spans to OTLP JSON lines, the way the OpenTelemetry Collector's file exporter writes them.

One `ExportTraceServiceRequest` per line, protobuf JSON mapping (camelCase keys, int64
as strings, enums as integers), with trace and span ids as lowercase hex (protobuf's
JSON mapping gives bytes as base64; OTLP/JSON and the Collector use hex).

The exporter keeps the spans in memory and writes them at shutdown, one line per trace
in the order the traces started, so a file holds one run per line. Nothing is sent
anywhere. Ids come from a seeded generator so regenerating gives the same trace ids
when the libraries make the same spans in the same order.
"""

import base64
import json
import random
import threading
from importlib.metadata import version

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.id_generator import IdGenerator

HEX_KEYS = {"traceId", "spanId", "parentSpanId"}


def hex_ids(node):
    """Rewrite base64 id fields (anywhere: spans, links) as lowercase hex, in place."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in HEX_KEYS and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids(item)
    return node


def request_json(spans):
    """One ExportTraceServiceRequest of `spans` as a dict in the Collector's JSON shape."""
    message = encode_spans(spans)
    return hex_ids(json_format.MessageToDict(message, use_integers_for_enums=True))


class SeededIds(IdGenerator):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lock = threading.Lock()

    def generate_span_id(self):
        with self.lock:
            return self.rng.getrandbits(64) or 1

    def generate_trace_id(self):
        with self.lock:
            return self.rng.getrandbits(128) or 1


class JsonLinesExporter(SpanExporter):
    def __init__(self, path):
        self.path = path
        self.spans = []
        self.lock = threading.Lock()

    def export(self, spans):
        with self.lock:
            self.spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self):
        with self.lock:
            spans, self.spans = self.spans, []
        traces = {}
        for span in spans:
            traces.setdefault(span.context.trace_id, []).append(span)
        order = sorted(traces.values(), key=lambda group: min(s.start_time for s in group))
        with open(self.path, "w") as f:
            for group in order:
                group.sort(key=lambda s: (s.start_time, s.context.span_id))
                f.write(json.dumps(request_json(group), separators=(",", ":")) + "\n")

    def force_flush(self, timeout_millis=30000):
        return True


def provider(path, service, seed):
    """A tracer provider that writes every span to `path` at shutdown."""
    # Not Resource.create: it adds a random service.instance.id to every file.
    resource = Resource({
        "service.name": service,
        "telemetry.sdk.language": "python",
        "telemetry.sdk.name": "opentelemetry",
        "telemetry.sdk.version": version("opentelemetry-sdk"),
    })
    tp = TracerProvider(resource=resource,
                        id_generator=SeededIds(seed))
    tp.add_span_processor(SimpleSpanProcessor(JsonLinesExporter(path)))
    return tp

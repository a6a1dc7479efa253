"""Runs the scenario's 8 runs under one instrumentation library and writes the spans.

    <row venv>/bin/python agent_run.py ROW --base-url http://127.0.0.1:PORT/v1 --out F [--mode M]

Run in the row's own virtual environment (make.py does this). Rows:
  openai-v2            opentelemetry-instrumentation-openai-v2; --mode content|no-content
  openinference-openai openinference-instrumentation-openai
  traceloop            opentelemetry-instrumentation-openai (OpenLLMetry), any version
  pydantic-ai          pydantic-ai-slim Agent.instrument_all; --mode N (data format version)
  openai-agents        openai-agents + openinference-instrumentation-openai-agents

The client-only rows (openai-v2, openinference-openai, traceloop) only see model calls,
so this program opens one `invoke_agent` span per run around its loop (one run per
trace), as toolscope's docs tell users to. The frameworks make their own agent spans.
"""

import argparse
import inspect
import json
import os
import sys
import zlib

import scenario
from otlp_jsonl import provider

API_KEY = "sk-fake-local"


def client_loop(tp, base_url):
    """The agent loop of the client-only rows: plain openai client, our invoke_agent spans."""
    from openai import OpenAI
    from opentelemetry.trace import SpanKind

    client = OpenAI(base_url=base_url, api_key=API_KEY, max_retries=0)
    tracer = tp.get_tracer("toolscope.otlp-libs.agent")
    for i, (agent, _, _) in enumerate(scenario.RUNS):
        instructions, _ = scenario.AGENTS[agent]
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent}
        with tracer.start_as_current_span(f"invoke_agent {agent}", kind=SpanKind.INTERNAL,
                                          attributes=attrs):
            messages = [{"role": "system", "content": instructions},
                        {"role": "user", "content": scenario.prompt(i)}]
            while True:
                resp = client.chat.completions.create(
                    model=scenario.MODEL, messages=messages, tools=scenario.openai_tools(agent))
                msg = resp.choices[0].message
                if not msg.tool_calls:
                    break
                messages.append({
                    "role": "assistant",
                    "content": msg.content,
                    "tool_calls": [{"id": tc.id, "type": "function",
                                    "function": {"name": tc.function.name,
                                                 "arguments": tc.function.arguments}}
                                   for tc in msg.tool_calls],
                })
                for tc in msg.tool_calls:
                    fn = scenario.TOOL_BY_NAME[tc.function.name]
                    result = fn(**json.loads(tc.function.arguments))
                    messages.append({"role": "tool", "tool_call_id": tc.id, "content": result})


def row_openai_v2(tp, base_url, mode):
    # The latest GenAI conventions; content capture is what --mode chooses.
    os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
    if mode == "content":
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
    else:
        os.environ.pop("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", None)
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=tp)
    client_loop(tp, base_url)


def row_openinference_openai(tp, base_url, mode):
    from openinference.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=tp)
    client_loop(tp, base_url)


def row_traceloop(tp, base_url, mode):
    os.environ["TRACELOOP_TRACE_CONTENT"] = "true"
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor

    OpenAIInstrumentor().instrument(tracer_provider=tp)
    client_loop(tp, base_url)


def row_pydantic_ai(tp, base_url, mode):
    from pydantic_ai import Agent
    from pydantic_ai.models.instrumented import InstrumentationSettings
    from pydantic_ai.providers.openai import OpenAIProvider

    try:
        from pydantic_ai.models.openai import OpenAIChatModel as ChatModel
    except ImportError:  # 1.0 names it OpenAIModel
        from pydantic_ai.models.openai import OpenAIModel as ChatModel

    settings = {"tracer_provider": tp, "include_content": True}
    if mode:
        settings["version"] = int(mode)
    if "include_model_request_parameters" in inspect.signature(InstrumentationSettings).parameters:
        # 2.x repeats every tool's full definition in `model_request_parameters` on each
        # chat span (300 KB here); `gen_ai.tool.definitions` still says what was given.
        # 1.0 has no such switch, and there this attribute is the only place it says so.
        settings["include_model_request_parameters"] = False
    Agent.instrument_all(InstrumentationSettings(**settings))
    model = ChatModel(scenario.MODEL, provider=OpenAIProvider(base_url=base_url, api_key=API_KEY))
    agents = {
        name: Agent(model, name=name, instructions=instructions,
                    tools=[scenario.TOOL_BY_NAME[t] for t in tools])
        for name, (instructions, tools) in scenario.AGENTS.items()
    }
    for i, (agent, _, _) in enumerate(scenario.RUNS):
        agents[agent].run_sync(scenario.prompt(i))


def row_openai_agents(tp, base_url, mode):
    import agents as sdk
    from openai import AsyncOpenAI
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

    # Nothing goes to OpenAI's trace backend: our processor is the only one.
    OpenAIAgentsInstrumentor().instrument(tracer_provider=tp, exclusive_processor=True)
    client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, max_retries=0)
    model = sdk.OpenAIChatCompletionsModel(model=scenario.MODEL, openai_client=client)
    built = {
        name: sdk.Agent(name=name, instructions=instructions, model=model,
                        tools=[sdk.function_tool(scenario.TOOL_BY_NAME[t]) for t in tools])
        for name, (instructions, tools) in scenario.AGENTS.items()
    }
    for i, (agent, _, _) in enumerate(scenario.RUNS):
        sdk.Runner.run_sync(built[agent], scenario.prompt(i))


ROWS = {
    "openai-v2": row_openai_v2,
    "openinference-openai": row_openinference_openai,
    "traceloop": row_traceloop,
    "pydantic-ai": row_pydantic_ai,
    "openai-agents": row_openai_agents,
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("row", choices=sorted(ROWS))
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--mode", default="")
    ap.add_argument("--seed", type=int, help="id seed (default: from the file name, so "
                    "files made in one go have distinct trace ids that stay the same next time)")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else zlib.crc32(os.path.basename(args.out).encode())
    tp = provider(args.out, f"otlp-libs-{args.row}", seed)
    try:
        ROWS[args.row](tp, args.base_url, args.mode)
    finally:
        tp.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())

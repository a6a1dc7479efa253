"""The scripted scenario every row runs: 10 tools, three agents, 8 runs, 25 calls.

Standard library only: the fake server, the agent programs (in each row's virtual
environment), `kit.yml` and `expected.json` all read this one table.

A run is a list of model responses: each one a list of tool calls (name, arguments),
made in that order; a response with two calls is a parallel call. After the last
response with calls the model answers in text. Run 6 makes no call at all.
"""

import inspect
import json

MODEL = "fake-model"


# The tools: trivial functions the agent programs really execute. Their signatures and
# docstrings are the tool definitions every library sends to the model.
def search_web(query: str) -> str:
    """Search the web and return the top result titles."""
    return f"3 results for {query!r}: intro, reference, tutorial"


def fetch_page(url: str) -> str:
    """Fetch a web page and return its text."""
    return f"text of {url}: 120 words about the subject"


def translate(text: str, target: str) -> str:
    """Translate a text into the target language."""
    return f"[{target}] {text}"


def get_time(zone: str) -> str:
    """Current time in a time zone."""
    return f"12:00 in {zone}"


def list_dir(path: str) -> str:
    """List the files in a directory."""
    return f"{path}: a.csv, b.csv, notes.txt"


def read_file(path: str) -> str:
    """Read a text file."""
    return f"contents of {path}: 4 lines"


def run_sql(query: str) -> str:
    """Run a SQL query on the sales database."""
    return f"2 rows for {query!r}: (north, 10), (south, 7)"


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression."""
    return f"{expression} = 17"


def get_weather(city: str) -> str:
    """Weather forecast for a city."""
    return f"sunny in {city}, 21 C"


def send_email(to: str, subject: str) -> str:
    """Send an email."""
    return f"sent {subject!r} to {to}"


TOOLS = [search_web, fetch_page, translate, get_time, list_dir, read_file, run_sql,
         calculate, get_weather, send_email]
TOOL_BY_NAME = {f.__name__: f for f in TOOLS}

# Agent name -> (instructions, the tools it offers the model, in this order).
AGENTS = {
    "researcher": ("You research questions on the web.",
                   ["search_web", "fetch_page", "translate", "get_time"]),
    "analyst": ("You answer questions from files and the sales database.",
                ["list_dir", "read_file", "run_sql", "calculate", "get_time"]),
    "assistant": ("You help with everyday errands.",
                  ["get_weather", "send_email", "get_time", "calculate", "translate"]),
}

# The runs: (agent, user prompt, responses). Each response is a list of calls.
RUNS = [
    ("researcher", "What is OTLP?", [
        [("search_web", {"query": "OTLP"})],
        [("fetch_page", {"url": "https://example.org/otlp"})],
        [("translate", {"text": "OTLP is a protocol", "target": "fr"})],
    ]),
    ("researcher", "What time is it in Tokyo, and what is a span?", [
        [("search_web", {"query": "span tracing"}), ("get_time", {"zone": "Asia/Tokyo"})],
        [("fetch_page", {"url": "https://example.org/span"})],
        [("translate", {"text": "a span is a unit of work", "target": "ja"})],
    ]),
    ("analyst", "Total sales in the north?", [
        [("list_dir", {"path": "/data"})],
        [("read_file", {"path": "/data/a.csv"})],
        [("run_sql", {"query": "select region, sum(x) from sales group by region"})],
        [("calculate", {"expression": "10 + 7"})],
    ]),
    ("analyst", "Compare this month with last month.", [
        [("run_sql", {"query": "select * from sales where month = 11"})],
        [("run_sql", {"query": "select * from sales where month = 10"})],
        [("calculate", {"expression": "10 - 7"})],
    ]),
    ("assistant", "Tell Ana the weather in Lisbon.", [
        [("get_weather", {"city": "Lisbon"})],
        [("send_email", {"to": "ana@example.org", "subject": "Lisbon: sunny"})],
    ]),
    ("assistant", "Say hello.", []),
    ("analyst", "Summarize the notes and the totals.", [
        [("list_dir", {"path": "/notes"})],
        [("read_file", {"path": "/notes/notes.txt"})],
        [("read_file", {"path": "/data/b.csv"})],
        [("calculate", {"expression": "4 * 3"})],
    ]),
    ("assistant", "Plan my morning in Berlin and mail it to Bo in German.", [
        [("get_time", {"zone": "Europe/Berlin"})],
        [("get_weather", {"city": "Berlin"})],
        [("calculate", {"expression": "8 + 1"})],
        [("translate", {"text": "leave at 9", "target": "de"})],
        [("send_email", {"to": "bo@example.org", "subject": "Morgen"})],
    ]),
]

RUN_MARK = "[run {}] "


def prompt(index):
    """The user prompt of run `index` (0-based), marked so the server knows the run."""
    return RUN_MARK.format(index + 1) + RUNS[index][1]


def call_id(run, response, k):
    """Unique tool call id: run, response and position, all 1-based."""
    return f"call_r{run + 1}_s{response + 1}_{k + 1}"


def final_text(index):
    return f"Done with run {index + 1}."


def tool_schema(fn):
    """JSON schema of a tool's parameters, from its signature (all strings here)."""
    params = list(inspect.signature(fn).parameters)
    return {
        "type": "object",
        "properties": {p: {"type": "string"} for p in params},
        "required": params,
    }


def openai_tools(agent):
    """The `tools` of a chat completions request for an agent."""
    return [{
        "type": "function",
        "function": {
            "name": name,
            "description": inspect.getdoc(TOOL_BY_NAME[name]),
            "parameters": tool_schema(TOOL_BY_NAME[name]),
        },
    } for name in AGENTS[agent][1]]


def calls_in_order(index):
    return [name for response in RUNS[index][2] for name, _ in response]


def check():
    calls = sum(len(calls_in_order(i)) for i in range(len(RUNS)))
    parallel = sum(1 for r in RUNS for resp in r[2] if len(resp) > 1)
    silent = sum(1 for r in RUNS if not r[2])
    assert len(TOOLS) == 10 and len(AGENTS) == 3 and len(RUNS) == 8
    assert calls == 25 and parallel == 1 and silent == 1, (calls, parallel, silent)
    for agent, _, responses in RUNS:
        for response in responses:
            for name, args in response:
                assert name in AGENTS[agent][1], (agent, name)
                assert set(args) == set(inspect.signature(TOOL_BY_NAME[name]).parameters)


check()

if __name__ == "__main__":
    print(json.dumps([calls_in_order(i) for i in range(len(RUNS))]))

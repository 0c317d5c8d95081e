"""The test graph: a model stub node and a ToolNode, no network."""

from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, AnyMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.types import interrupt


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"result for {query}"


@tool
def explode(query: str) -> str:
    """A tool whose process dies."""
    raise RuntimeError("the run was killed mid-batch")


@tool
def ask_human(question: str) -> str:
    """Ask the human and wait for the answer."""
    return interrupt({"question": question})


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def model(state: State) -> dict:
    """Answer the last user message: tool calls chosen from its words, else plain text."""
    last = state["messages"][-1]
    n = len(state["messages"])
    if last.type != "human":
        return {"messages": [AIMessage(content=f"done ({n} messages)")]}
    text = last.content
    calls = []
    if "look up" in text:
        calls.append({"name": "lookup", "args": {"query": text}, "id": f"call_lookup_{n}"})
    if "twice" in text:
        calls.append({"name": "lookup", "args": {"query": "again"}, "id": f"call_again_{n}"})
    if "explode" in text:
        calls.append({"name": "explode", "args": {"query": text}, "id": f"call_explode_{n}"})
    if "ask me" in text:
        calls.append({"name": "ask_human", "args": {"question": "ok?"}, "id": f"call_ask_{n}"})
    if not calls:
        return {"messages": [AIMessage(content=f"you said: {text}")]}
    return {"messages": [AIMessage(content="", tool_calls=calls)]}


def route(state: State) -> str:
    last = state["messages"][-1]
    return "tools" if getattr(last, "tool_calls", None) else END


def build(saver):
    g = StateGraph(State)
    g.add_node("model", model)
    g.add_node("tools", ToolNode([lookup, explode, ask_human], handle_tool_errors=False))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", route, ["tools", END])
    g.add_edge("tools", "model")
    return g.compile(checkpointer=saver)

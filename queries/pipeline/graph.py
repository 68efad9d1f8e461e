"""Wire the eight nodes. One loop edge (reflect -> retrieval); final_answer ends the graph."""

from __future__ import annotations

from functools import lru_cache

from langgraph.graph import END, StateGraph

from queries.pipeline import stages
from queries.pipeline.nodes.aggregate import aggregate
from queries.pipeline.nodes.compress import compress
from queries.pipeline.nodes.external_tools import external_tools
from queries.pipeline.nodes.planner import planner
from queries.pipeline.nodes.reason import reason
from queries.pipeline.nodes.reflect import reflect
from queries.pipeline.nodes.rerank import rerank
from queries.pipeline.nodes.retrieval import retrieval
from queries.pipeline.state import RAGState


def route_reflection(state: RAGState) -> str:
    """End when a final answer is set; otherwise go round again (the only loop edge)."""
    return END if state.get("final_answer") else stages.NODE_RETRIEVAL


@lru_cache(maxsize=1)
def build_graph():
    """Compile the pipeline once per process.

    Unlike adRAG, the planner always hands over to retrieval: in direct-answer mode the
    retrieval and external_tools nodes report stage_skip themselves, so no tracker row stays
    idle; external_tools decides for itself whether to search, as in the spec.
    """
    graph = StateGraph(RAGState)
    graph.add_node(stages.NODE_PLANNER, planner)
    graph.add_node(stages.NODE_RETRIEVAL, retrieval)
    graph.add_node(stages.NODE_EXTERNAL_TOOLS, external_tools)
    graph.add_node(stages.NODE_AGGREGATE, aggregate)
    graph.add_node(stages.NODE_RERANK, rerank)
    graph.add_node(stages.NODE_COMPRESS, compress)
    graph.add_node(stages.NODE_REASON, reason)
    graph.add_node(stages.NODE_REFLECT, reflect)
    graph.set_entry_point(stages.NODE_PLANNER)
    graph.add_edge(stages.NODE_PLANNER, stages.NODE_RETRIEVAL)
    graph.add_edge(stages.NODE_RETRIEVAL, stages.NODE_EXTERNAL_TOOLS)
    graph.add_edge(stages.NODE_EXTERNAL_TOOLS, stages.NODE_AGGREGATE)
    graph.add_edge(stages.NODE_AGGREGATE, stages.NODE_RERANK)
    graph.add_edge(stages.NODE_RERANK, stages.NODE_COMPRESS)
    graph.add_edge(stages.NODE_COMPRESS, stages.NODE_REASON)
    graph.add_edge(stages.NODE_REASON, stages.NODE_REFLECT)
    graph.add_conditional_edges(
        stages.NODE_REFLECT,
        route_reflection,
        {END: END, stages.NODE_RETRIEVAL: stages.NODE_RETRIEVAL},
    )
    return graph.compile()

"""Stage ids and event types: the wire contract, named once.

Five emitted stage ids differ from the graph's node names, as in the spec; the emitted ids are
the contract and must never change.
"""

from __future__ import annotations

# Emitted stage ids (the tracker's eight rows).
PLANNER = "planner"
RETRIEVAL = "retrieval"
EXTERNAL_TOOLS = "external_tools"
AGGREGATOR = "aggregator"
RERANKER = "reranker"
COMPRESSOR = "compressor"
REASONING = "reasoning"
REFLECTION = "reflection"
STAGES = (
    PLANNER,
    RETRIEVAL,
    EXTERNAL_TOOLS,
    AGGREGATOR,
    RERANKER,
    COMPRESSOR,
    REASONING,
    REFLECTION,
)
# The stage id of a route-framed pipeline error.
PIPELINE = "pipeline"

# Graph node names.
NODE_PLANNER = "planner"
NODE_RETRIEVAL = "retrieval"
NODE_EXTERNAL_TOOLS = "external_tools"
NODE_AGGREGATE = "aggregate"
NODE_RERANK = "rerank"
NODE_COMPRESS = "compress"
NODE_REASON = "reason"
NODE_REFLECT = "reflect"

# Event types emitted by the pipeline.
STAGE_START = "stage_start"
STAGE_COMPLETE = "stage_complete"
STAGE_SKIP = "stage_skip"
STAGE_ERROR = "stage_error"
RETRIEVAL_RESULT = "retrieval_result"
FINALIZE = "finalize"
RETRY = "retry"
PIPELINE_EVENTS = (
    STAGE_START,
    STAGE_COMPLETE,
    STAGE_SKIP,
    STAGE_ERROR,
    RETRIEVAL_RESULT,
    FINALIZE,
    RETRY,
)
# Event types framed by the run (not by a node).
DONE = "done"
ERROR = "error"
STREAM_END = "stream_end"
TERMINAL_EVENTS = (DONE, ERROR)
# The answer as it is written, coalesced: {stage, attempt, offset, text}; a reader keeps the
# first `offset` characters of the attempt's text and appends `text`. Only the events
# endpoint sends it: POST /api/query keeps the spec's event types exactly.
ANSWER_DELTA = "answer_delta"
EVENTSOURCE_ONLY = (ANSWER_DELTA,)
# Sent by a stream, never logged: the run is queued and no live worker takes its queue.
WAITING = "waiting"
EVENT_TYPES = (*PIPELINE_EVENTS, DONE, ERROR, STREAM_END, ANSWER_DELTA)

"""How questions are answered: models and providers, the pipeline's tunables, the indexes of large
knowledge bases, the table store, streams and run limits."""

from __future__ import annotations

from adrag_site.env import env_bool, env_float, env_int, env_list, env_map, env_str

# --- Models and providers ---------------------------------------------------------------------
# The spec's names and defaults.
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
LLM_MODEL = env_str("LLM_MODEL", "gpt-4o-mini")
OLLAMA_BASE_URL = env_str("OLLAMA_BASE_URL", "http://localhost:11434")
OLLAMA_MODEL = env_str("OLLAMA_MODEL", "llama3.2")
DEFAULT_PROVIDER = env_str("DEFAULT_PROVIDER")
# Extra model backends: "name=package.module:Class,..." (each a providers.llm.chat.ChatBackend).
ADRAG_PROVIDER_PLUGINS = env_list("ADRAG_PROVIDER_PLUGINS")
# How each provider answers (queries/answering/registry.py composes it with its backend):
# "model" (the model plans, writes a JSON answer and judges it, as the spec has it),
# "quote_first" (the passages quoted first, the model writes only when the check does not
# verify the quote), or "extractive" (no model). "name=strategy,..." over these defaults; a
# plugin without an entry answers with "model".
ANSWER_STRATEGIES = env_map(
    "ANSWER_STRATEGIES",
    {"openai": "model", "ollama": "model", "local": "quote_first", "extractive": "extractive"},
)
# The deadline of one model call; a cancel or a timeout closes its stream at once.
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 120.0)
# Output budget (max_tokens / num_predict) per task of a model call.
LLM_MAX_TOKENS = {
    "plan": env_int("LLM_MAX_TOKENS_PLAN", 160),
    "compress": env_int("LLM_MAX_TOKENS_COMPRESS", 800),
    "answer": env_int("LLM_MAX_TOKENS_ANSWER", 600),
    "answer_plain": env_int("LLM_MAX_TOKENS_ANSWER", 600),
    "direct": env_int("LLM_MAX_TOKENS_DIRECT", 400),
    "reflect": env_int("LLM_MAX_TOKENS_REFLECT", 300),
    "rewrite": env_int("LLM_MAX_TOKENS_REWRITE", 60),
    "condense": env_int("LLM_MAX_TOKENS_CONDENSE", 80),
    "table_query": env_int("LLM_MAX_TOKENS_TABLE_QUERY", 200),
    "default": env_int("LLM_MAX_TOKENS_DEFAULT", 400),
}
# JSON stages send their schema: auto (json_schema, downgraded per server when rejected),
# json_schema, json_object_schema (llama-cpp-python's server), json_object, or none.
OPENAI_STRUCTURED_OUTPUT = env_str("OPENAI_STRUCTURED_OUTPUT", "auto").lower()
# "auto": ask a self-hosted server (llama.cpp's) to keep the prompt cache; true/false to force.
OPENAI_CACHE_PROMPT = env_str("OPENAI_CACHE_PROMPT", "auto").lower()
# The evidence a model behind OPENAI_BASE_URL reads, in tokens (about four characters each):
# 0 for none. A small model on a server of one's own reads a long prompt slowly (llama.cpp's
# server beside the portal: 300, as the local provider's catalogue model).
OPENAI_CONTEXT_TOKENS = env_int("OPENAI_CONTEXT_TOKENS", 0)
# Ollama and the local provider: schema (a grammar from the stage's schema), json_object, none.
OLLAMA_STRUCTURED_OUTPUT = env_str("OLLAMA_STRUCTURED_OUTPUT", "schema").lower()
# The in-process llama.cpp provider (`pip install -e '.[local]'`): any GGUF file.
LOCAL_MODEL_PATH = env_str("LOCAL_MODEL_PATH")
# Without LOCAL_MODEL_PATH, the catalogue model of this name once `manage.py fetch_model` ran.
LOCAL_MODEL = env_str("LOCAL_MODEL", "qwen2.5-coder-1.5b")
LOCAL_N_CTX = env_int("LOCAL_N_CTX", 4096)
# The evidence a local model reads, in its tokens: 0 takes the catalogue's measured figure for
# the model (none for a model of your own: then MAX_CONTEXT_CHARS alone).
LOCAL_CONTEXT_TOKENS = env_int("LOCAL_CONTEXT_TOKENS", 0)
LOCAL_N_THREADS = env_int("LOCAL_N_THREADS", 0)  # 0: one per core
# OMP_WAIT_POLICY defaults to PASSIVE for the portal's processes (adrag_site/apps.py).
LOCAL_STRUCTURED_OUTPUT = env_str("LOCAL_STRUCTURED_OUTPUT", "schema").lower()
# Run workers load the local model at start: "auto" when DEFAULT_PROVIDER is local; true/false.
LOCAL_WARM_UP = env_str("LOCAL_WARM_UP", "auto").lower()


# --- The pipeline: retrieval, rerank and answer -----------------------------------------------
RETRIEVAL_TOP_K = env_int("RETRIEVAL_TOP_K", 10)
RERANK_TOP_K = env_int("RERANK_TOP_K", 5)
MAX_CONTEXT_CHARS = env_int("MAX_CONTEXT_CHARS", 4000)
MAX_REFLECTION_RETRIES = env_int("MAX_REFLECTION_RETRIES", 2)
# A retry may sample: the critic's feedback changes the prompt, and a little temperature helps.
RETRY_TEMPERATURE = env_float("RETRY_TEMPERATURE", 0.3)
# Answer text reaches the events endpoint as `answer_delta` events, coalesced to at most one
# per ANSWER_DELTA_SECONDS and ANSWER_DELTA_MAX_EVENTS per attempt, so the log stays bounded.
ANSWER_DELTA_SECONDS = env_float("ANSWER_DELTA_SECONDS", 0.25)
ANSWER_DELTA_MAX_EVENTS = env_int("ANSWER_DELTA_MAX_EVENTS", 60)
# A web search (the external_tools stage) gives up after this long; the run goes on without it.
WEB_SEARCH_TIMEOUT_SECONDS = env_float("WEB_SEARCH_TIMEOUT_SECONDS", 5.0)
EMBEDDING_MODEL = env_str("EMBEDDING_MODEL", "all-MiniLM-L6-v2")
# An encoder class (dotted path) used in place of EMBEDDING_MODEL: the tests' live processes
# take a small deterministic one, which loads in no time.
EMBEDDER_PLUGIN = env_str("EMBEDDER_PLUGIN", "")
RERANKER_MODEL = env_str("RERANKER_MODEL", "cross-encoder/ms-marco-MiniLM-L-6-v2")
CHUNK_SIZE = env_int("CHUNK_SIZE", 500)
CHUNK_OVERLAP = env_int("CHUNK_OVERLAP", 50)
# The best rerank score below which a retry escalates to the web, per reranker kind.
RERANK_FLOOR_CROSS_ENCODER = env_float("RERANK_FLOOR_CROSS_ENCODER", 0.0)
RERANK_FLOOR_FALLBACK = env_float("RERANK_FLOOR_FALLBACK", 0.25)
RERANK_FALLBACK_LEXICAL_WEIGHT = env_float("RERANK_FALLBACK_LEXICAL_WEIGHT", 0.5)

# Rank fusion (chosen on NFCorpus and SciFact train; docs/benchmarks.md "Retrieval quality").
FUSION_RRF_K = env_int("FUSION_RRF_K", 60)
FUSION_WEIGHT_VECTOR = env_float("FUSION_WEIGHT_VECTOR", 1.0)
FUSION_WEIGHT_BM25 = env_float("FUSION_WEIGHT_BM25", 1.0)
FUSION_WEIGHT_GRAPH = env_float("FUSION_WEIGHT_GRAPH", 0.3)
FUSION_WEIGHT_WEB = env_float("FUSION_WEIGHT_WEB", 1.0)
FUSION_WEIGHT_TABLE = env_float("FUSION_WEIGHT_TABLE", 1.0)


# --- Indexes of large knowledge bases ---------------------------------------------------------
# A knowledge base with at least this many chunks gets an HNSW index of its own
# (knowledge/vector_index.py); a smaller one is searched exactly. Builds use this much memory.
VECTOR_INDEX_MIN_CHUNKS = env_int("VECTOR_INDEX_MIN_CHUNKS", 10_000)
VECTOR_INDEX_BUILD_MEMORY_MB = env_int("VECTOR_INDEX_BUILD_MEMORY_MB", 1024)
# BM25 reads a KB of at least this many chunks from its term blocks (knowledge/term_blocks.py),
# copied again once this share of its chunks changed since the last copy.
TERM_BLOCKS_MIN_CHUNKS = env_int("TERM_BLOCKS_MIN_CHUNKS", 10_000)
TERM_BLOCKS_REBUILD_FRACTION = env_float("TERM_BLOCKS_REBUILD_FRACTION", 0.05)


# --- The table store --------------------------------------------------------------------------
# The table store (knowledge/tables/store.py): a program answers only when the judge
# (knowledge/tables/judge.py) gives it at least TABLE_ANSWER_MIN probability of being right and
# at least TABLE_RELEVANCE_MIN of the question's content words are the table's (or BM25 ranks
# one of its rows first); its answer is verified from TABLE_VERIFY_MIN on. On the half of
# WikiTableQuestions' held-out training tables the judge was not fitted on, answers from 0.5
# were right 7 times in 10 and answers from 0.85 87 times in 100 (167 of 192; those from 0.8 to
# 0.85, 4 in 5: too few to badge); on the team sets' tuning questions, each judged by a judge
# fitted without its set, 76 of 79 from 0.85 (the report in knowledge/tables/judge_weights.json;
# docs/benchmarks.md, tables).
TABLE_ANSWER_MIN = env_float("TABLE_ANSWER_MIN", 0.5)
TABLE_PROGRAM_MIN = env_float("TABLE_PROGRAM_MIN", 0.2)
TABLE_RELEVANCE_MIN = env_float("TABLE_RELEVANCE_MIN", 0.5)
# A question word the table does not hold counts as the table's when its embedding is this close
# to a word of the table's headers or label ("country" and Nation, "medals" and Gold).
TABLE_HEADER_COSINE = env_float("TABLE_HEADER_COSINE", 0.5)
TABLE_VERIFY_MIN = env_float("TABLE_VERIFY_MIN", 0.85)
# A program the rules above do not admit is still the answer when the passages find nothing and
# the judge gives it at least this, shown as the table's likeliest reading, never verified (on
# the held-out half of those training tables, such answers were right 4 times in 10).
TABLE_TENTATIVE_MIN = env_float("TABLE_TENTATIVE_MIN", 0.2)
# Tables with more rows than this are not computed on (their row chunks still answer lookups).
TABLE_MAX_ROWS = env_int("TABLE_MAX_ROWS", 5000)
# A table query a model writes (generative providers) runs at most this long, returning at most
# this many rows; past either it is stopped or refused and the parser's program answers.
TABLE_QUERY_TIMEOUT_MS = env_int("TABLE_QUERY_TIMEOUT_MS", 2000)
TABLE_QUERY_ROW_LIMIT = env_int("TABLE_QUERY_ROW_LIMIT", 200)
# A model's table query that fails as written or finds no answer (empty, not the number asked)
# is shown to the model with its problem this many times for a corrected one.
TABLE_QUERY_RETRIES = env_int("TABLE_QUERY_RETRIES", 1)
# A model is not asked for a table query when the judge gives the parser's program at least
# this (by default, enough to answer: on 100 WikiTableQuestions test questions the local model's
# queries were right 9 times in 36, the parser's answers from 0.5 about 3 times in 5).
TABLE_PARSER_SURE = env_float("TABLE_PARSER_SURE", TABLE_ANSWER_MIN)


# --- Streams and run limits -------------------------------------------------------------------
STREAM_HEARTBEAT_SECONDS = env_float("STREAM_HEARTBEAT_SECONDS", 15.0)
STREAM_IDLE_TIMEOUT_SECONDS = env_float("STREAM_IDLE_TIMEOUT_SECONDS", 180.0)
WORKER_SEEN_SECONDS = env_int("WORKER_SEEN_SECONDS", 60)
# A running run whose worker has sent no heartbeat for this long is marked interrupted.
RUN_STALE_SECONDS = env_float("RUN_STALE_SECONDS", 10.0)
# How long a run's writes wait for a database that went away (a restart) before giving up.
DB_RETRY_SECONDS = env_float("DB_RETRY_SECONDS", 60.0)
# How often a waiting stream re-reads the log in case a notification was lost (each small
# event arrives inside its notification; once a second while the LISTEN connection is down).
STREAM_POLL_SECONDS = env_float("STREAM_POLL_SECONDS", 5.0)
# A stream whose run has not started after this long says so when no live worker takes it.
STREAM_WAITING_SECONDS = env_float("STREAM_WAITING_SECONDS", 5.0)
# Threads (and so database connections) a web process uses to read run logs for its streams.
STREAM_READ_THREADS = env_int("STREAM_READ_THREADS", 8)
# Per-user limits; over either, POST /api/query answers 429 before the stream opens.
RUNS_MAX_CONCURRENT_PER_USER = env_int("RUNS_MAX_CONCURRENT_PER_USER", 3)
RUNS_PER_HOUR_PER_USER = env_int("RUNS_PER_HOUR_PER_USER", 120)
# The longest question POST /api/query accepts; longer ones answer 400 `query_too_long`.
MAX_QUERY_CHARS = env_int("MAX_QUERY_CHARS", 4000)

# --- Evaluations (queries/evaluation/) ----------------------------------------------------------
# Runs of one evaluation queued or running at once. Its jobs also wait behind people's questions
# (a lower priority on the runs queue), so a question waits for at most the runs already running.
EVALUATION_RUNS_IN_FLIGHT = env_int("EVALUATION_RUNS_IN_FLIGHT", 2)
# The most questions one evaluation set may hold.
EVALUATION_MAX_QUESTIONS = env_int("EVALUATION_MAX_QUESTIONS", 1000)

# --- The MCP server (queries/mcp_server/) ------------------------------------------------------
# Streamable HTTP at /mcp on the web process (and `manage.py mcp` over stdio).
MCP_ENABLED = env_bool("MCP_ENABLED", True)
# Threads (and so database connections) a web process gives MCP tool calls.
MCP_THREADS = env_int("MCP_THREADS", 6)
# An `ask` call waits this long for its run; past it the call answers `timeout`, the run goes on.
MCP_ASK_TIMEOUT_SECONDS = env_float("MCP_ASK_TIMEOUT_SECONDS", 600.0)
# ASGI apps served beside Django (adrag_site/asgi.py), by path prefix and dotted path.
ASGI_MOUNTS = {"/mcp": "queries.mcp_server.http.mount"} if MCP_ENABLED else {}

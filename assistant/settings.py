"""One settings object for the whole product. Every field has a default and a description.

Override any field from the environment with the `PAPERCHAT_` prefix and `__` between sections, e.g.
`PAPERCHAT_STORE__PATH=/data/store`, `PAPERCHAT_LLM__BACKEND=openai`, `PAPERCHAT_LLM__BASE_URL=...`.
Secrets (the API key) are read from the environment only and never printed.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = [
    "Settings",
    "StoreSettings",
    "RetrievalSettings",
    "LLMSettings",
    "ChainSettings",
    "UISettings",
    "ServeSettings",
    "PROJECT_ROOT",
]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class StoreSettings(BaseModel):
    path: Path = Field(PROJECT_ROOT / "data" / "store", description="Folder of the embedded store.")
    server: str = Field("", description="URL of a Chroma server (http://host:port); empty for embedded.")
    collection: str = Field("paperchat", description="Chroma collection name.")
    embedder: str = Field(
        "minilm-onnx",
        description="Embedding backend name: minilm-onnx (int8 ONNX Runtime), minilm (torch fp32), hash.",
    )
    chunk_size: int = Field(1000, ge=100, le=4000, description="Target chunk size in characters.")
    chunk_overlap: int = Field(1, ge=0, le=5, description="Sentences shared by consecutive chunks.")
    batch_papers: int = Field(256, ge=1, description="Papers embedded and written per ingest batch.")


class RetrievalSettings(BaseModel):
    k: int = Field(5, ge=1, le=100, description="Papers returned per question.")
    candidates: int = Field(100, ge=10, le=1000, description="Candidates fetched from each retriever.")
    dense_weight: float = Field(0.4, ge=0, le=1, description="Weight of dense vs lexical in score fusion.")
    lexical_half_score: float = Field(36.0, gt=0, description="BM25 score that counts as half-relevant.")
    lexical_peak_gain: float = Field(
        0.0, ge=0, description="How much a clear BM25 winner lowers the dense weight."
    )
    dense_floor: float = Field(
        0.4, ge=0, le=1, description="Least share of the dense weight a question keeps."
    )
    fill_dense: bool = Field(
        True, description="Score candidates found by BM25 alone by their chunks' cosine too (else dense 0)."
    )
    fusion: str = Field("score", description="'score' (normalised score fusion) or 'rrf'.")
    rrf_k: int = Field(60, ge=1, description="Reciprocal-rank fusion constant.")
    mmr_lambda: float = Field(1.0, ge=0, le=1, description="MMR trade-off; 1.0 disables diversity.")
    cutoff: float | None = Field(None, description="Relevance cutoff on the fused score; None = calibrated.")
    bm25_k1: float = Field(0.9, description="BM25 k1.")
    bm25_b: float = Field(0.4, description="BM25 b.")


class LLMSettings(BaseModel):
    backend: str = Field("local", description="local, local-small, openai, ollama or extractive.")
    model: str = Field("", description="Model name for the openai/ollama backends.")
    base_url: str = Field("http://127.0.0.1:8000/v1", description="Base URL of the OpenAI-compatible API.")
    ollama_url: str = Field("http://127.0.0.1:11434", description="URL of a native Ollama server.")
    api_key: SecretStr = Field(SecretStr(""), description="API key; from the environment only.")
    timeout: float = Field(120.0, gt=0, description="Seconds before a backend call is abandoned.")
    temperature: float = Field(0.1, ge=0, le=2, description="Sampling temperature.")
    max_tokens: int = Field(384, ge=16, le=4096, description="Most tokens generated per answer.")
    context_window: int = Field(4096, ge=512, description="Context window of the local model, in tokens.")
    threads: int = Field(2, ge=1, description="CPU threads for the local model.")
    models_dir: Path = Field(PROJECT_ROOT / "models", description="Where assembled GGUF models are kept.")


class ChainSettings(BaseModel):
    context_budget: int = Field(1800, ge=200, description="Tokens of sources put in the prompt.")
    local_context_budget: int = Field(
        150, ge=60, description="Tokens of sources in an answer prompt for the local models (best sentences)."
    )
    local_follow_up_budget: int = Field(
        400,
        ge=60,
        description="Tokens of sources for the local models in a follow-up about the one paper under "
        "discussion: most of its abstract, since the user's words ('what else does it go after?') rank its "
        "sentences poorly.",
    )
    local_prompt_budget: int = Field(
        600,
        ge=60,
        description="Tokens of sources in the other prompts for the local models (a compared paper's "
        "abstract): ~600 tokens read at ~130 tokens/s keeps the first token near 5 s.",
    )
    nearest: int = Field(
        3, ge=1, le=20, description="Nearest papers named when the corpus does not cover a question."
    )
    summarize_cap: int = Field(40, ge=1, description="Most papers a subfield summary covers.")
    support_threshold: float = Field(0.5, ge=0, le=1, description="Least support for a cited sentence.")
    max_question_chars: int = Field(4000, ge=100, description="Longest question accepted, in characters.")


class UISettings(BaseModel):
    host: str = Field("127.0.0.1", description="Address the UI binds.")
    port: int = Field(7860, ge=1, le=65535, description="Port of the UI.")
    username: str = Field("", description="Login user (with password); empty disables login.")
    password: SecretStr = Field(SecretStr(""), description="Login password; from the environment only.")
    max_upload_mb: int = Field(50, ge=1, description="Largest corpus upload accepted.")
    concurrency: int = Field(2, ge=1, description="Language-model calls run at once.")


class ServeSettings(BaseModel):
    """The faces other tools use: the OpenAI-compatible `/v1` endpoint and the MCP server over HTTP."""

    host: str = Field("127.0.0.1", description="Address `paperchat serve` and `paperchat mcp` bind.")
    port: int = Field(8800, ge=1, le=65535, description="Port of the OpenAI-compatible endpoint.")
    mcp_port: int = Field(8801, ge=1, le=65535, description="Port of the MCP server over streamable HTTP.")
    api_key: SecretStr = Field(
        SecretStr(""),
        description="Bearer token `/v1` and MCP over HTTP require when set; from the environment only "
        "(PAPERCHAT_SERVE__API_KEY), never logged.",
    )
    max_request_bytes: int = Field(
        1_000_000, ge=1_000, description="Largest request body accepted; a larger one gets 413."
    )
    max_messages: int = Field(
        100, ge=1, description="Most messages in one chat completion request (its history included)."
    )
    concurrency: int = Field(2, ge=1, description="Answers computed at once; further requests wait.")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="PAPERCHAT_", env_nested_delimiter="__", extra="ignore")

    store: StoreSettings = Field(default_factory=StoreSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    chain: ChainSettings = Field(default_factory=ChainSettings)
    ui: UISettings = Field(default_factory=UISettings)
    serve: ServeSettings = Field(default_factory=ServeSettings)

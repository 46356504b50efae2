"""The hybrid retriever as a LangChain `BaseRetriever`, so LangChain chains can use it directly."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from assistant.retrieval import HybridRetriever
from assistant.types import Filters, SearchResult

__all__ = ["PaperRetriever", "to_document"]


def to_document(result: SearchResult) -> Document:
    """A paper result as a LangChain document: the abstract as content, everything else as metadata."""
    data = result.to_dict()
    abstract = data.pop("abstract")
    data["span"] = tuple(result.span)
    return Document(page_content=abstract, metadata=data, id=result.paper.paper_id)


class PaperRetriever(BaseRetriever):
    """Papers (not chunks) for a query, best first, with the same filters, fusion and cutoff as the CLI.

    `invoke(query)` returns Documents; the metadata carries `score`, `chunk`, `span` and, on the first
    document, `relevant` (whether anything cleared the calibrated cutoff) and the parsed filters.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    hybrid: HybridRetriever
    k: int | None = None
    filters: Filters | None = None
    parse_filters: bool = True
    only_relevant: bool = False

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        found = self.hybrid.retrieve(
            query,
            k=kwargs.get("k", self.k),
            filters=kwargs.get("filters", self.filters),
            parse_filters=self.parse_filters,
        )
        results = (
            [r for r in found.results if r.score >= found.cutoff] if self.only_relevant else found.results
        )
        documents = [to_document(r) for r in results]
        if documents:
            documents[0].metadata["relevant"] = found.relevant
            documents[0].metadata["parsed_filters"] = found.parsed_filters.describe()
        return documents

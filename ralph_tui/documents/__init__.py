"""Documents people have — text, Markdown, PDF, HTML, Word, folders of them — as one text
with a table of where each document and page sits in it."""

from ralph_tui.documents.confine import Confinement
from ralph_tui.documents.corpus import Corpus, Document, Limits, Source, assemble, read_corpus
from ralph_tui.documents.detect import SUPPORTED
from ralph_tui.documents.errors import InputError

__all__ = [
    "SUPPORTED",
    "Confinement",
    "Corpus",
    "Document",
    "InputError",
    "Limits",
    "Source",
    "assemble",
    "read_corpus",
]

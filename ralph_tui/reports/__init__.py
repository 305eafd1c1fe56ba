"""Evidence taken away from a session: the evidence bundle (JSON), HTML and Markdown
reports, and ``verify``, which re-checks a bundle's quotes against their sources."""

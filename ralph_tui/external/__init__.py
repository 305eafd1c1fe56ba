"""External documentation: pages crawled from URLs (host side only: the sandbox never gets
network access), cached with a refresh policy, and turned into passages that compete in
retrieval with the document's own."""

"""External documentation: pages crawled from URLs (host side only: the sandbox never gets
network access; every fetch under the URL policy of ``policy`` and ``transport``), cached
with a refresh policy, and turned into passages that compete in retrieval with the
document's own."""

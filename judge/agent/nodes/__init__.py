"""Graph nodes; each module is one node (plus its routing function where it has one)."""

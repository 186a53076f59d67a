"""Gold loading and scores."""

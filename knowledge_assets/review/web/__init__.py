"""The review web application (`knowledge-assets review serve`): server-rendered pages over the
store and the same review functions the command line uses."""

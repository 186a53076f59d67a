"""The deterministic candidate layer: where in a document a definition, a formula, a rule or a
statement of purpose probably is, found by the conventions of the genre, with its offsets and
the cue that found it.

One design for both backends: the stages compute the candidates, the requests carry them with
their chunks, the offline backend selects among them by rules and the model backend is shown
them (it selects and labels rather than searches, and may still propose others, which the span
check guards). Cue words are data, one language pack per language under `packs/`.
"""

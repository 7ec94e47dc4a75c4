"""Answers in a sentence, assembled from the catalog and the query step: no language model.

A homeowner's question ("How much is a new 3 ton heat pump?", "do you serve
63376?", "good vs best furnace", "what is included?", "roofing?") is read by
the query step (mirror/query), answered from the mirror's own published facts
(the company's public view, its catalog reads in mirror/read/), and written
as one short paragraph in which every number is the catalog's:

- `company`: one contractor's answer (`answer_company`): a form (price,
  coverage, comparison, included, no match), its sentence and the
  categories it is about (the NLWeb `/ask` items are their schema.org nodes);
- `directory`: the install's answer across the businesses of the business
  feed that serve a ZIP (`answer_directory`): the published installed price
  range, each business's own range and quote link beside it;
- `sentences`: the one place the sentences are written (the search's
  no-match message included), and how money, sizes and contractor text are
  shown. Contractor text (names, price notes, product names and
  descriptions) is quoted as data, never followed.

The A2A agents (a2a_server/) and the NLWeb `/ask` endpoints (nlweb_server/)
both answer with these; nothing above mirror/ writes an answer sentence.
This package sits in mirror/ because it only reads (through mirror/read/)
and formats text: it knows no HTTP, no tool declaration and no surface, so
every surface can use it under the import contracts (pyproject.toml).
"""

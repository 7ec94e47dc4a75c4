"""The public view rendered into the shapes others read, and the cache of those renderings.

- `schema_org`: a company's schema.org graph (JSON-LD, the pages' structured data, `/ask` items);
- `ucp`: the catalog in UCP's Catalog capability shapes;
- `documents`: pricing.json and the JSON-LD, rendered by the run that changed the company and stored with
  slots for the clock's values (the sync calls `publish`, handed in by `mirror.service`);
- `cache`: each company's renderings, computed once per content state.

May import the read layer and everything below it; never `mirror.answers` (its neighbour) or `mirror.service`.
"""

"""The stored model and its plumbing: one database, Postgres.

- `db`: engines, sessions, the autocommit reader and the per-call planning mark;
- `models`: the tables, as SQLAlchemy typed models (the schema is Alembic's: migrations/);
- `fulltext`: the database's full-text index objects and the queries over them;
- `state`: named values (watermarks, clocks) committed with the rows they describe;
- `lock`: one sync at a time across every process and host;
- `migrate`: Alembic driven from code, and a database's readiness for a command;
- `embedded`: the Postgres server `make run` and `make test` start when no URL is given.

May import `mirror.runtime` and `mirror.values`.
"""

"""The version of symq's JSON output (every ``--json`` object and every sweep record carries it).
The fields of every command are listed on the docs page *JSON output* (``docs/json-schema.md``).
:data:`SCHEMA_VERSION` goes up by one when a field is renamed, removed or changes meaning; adding a
field does not change it, so readers should ignore fields they do not know.

Examples
--------
>>> with_schema_version({"model": "w"})
{'schema_version': 1, 'model': 'w'}
>>> with_schema_version([{"name": "w"}])
[{'schema_version': 1, 'name': 'w'}]
"""

from __future__ import annotations

from typing import Any

__all__ = ["SCHEMA_VERSION", "with_schema_version"]

SCHEMA_VERSION = 1


def with_schema_version(data: Any) -> Any:
    """``data`` with ``"schema_version"`` first in the object (in each object of a list).

    Other values are returned unchanged; an object that already has the field keeps it.

    Parameters
    ----------
    data : object
        A JSON value about to be printed (a dict, a list of dicts, or anything else, which
        passes through).

    Returns
    -------
    object
        A new dict (or list of dicts) with the field first.

    Examples
    --------
    >>> list(with_schema_version({"ok": True}))
    ['schema_version', 'ok']

    Running time: O(size of the top level of ``data``).
    """
    if isinstance(data, dict):
        return data if "schema_version" in data else {"schema_version": SCHEMA_VERSION, **data}
    if isinstance(data, list):
        return [with_schema_version(item) if isinstance(item, dict) else item for item in data]
    return data

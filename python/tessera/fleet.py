"""The device fleet from Python: what `tessera fleet status` shows, as plain Python."""
import json
import os

from . import _tessera


def status(tracker, token_file=None, tls_ca=None):
    """The fleet of the tracker at `tracker` ("HOST:PORT"): a dict with the fields `tessera
    fleet status --json` prints (servers with their keys and states, queues, sessions). Raises
    tessera.FleetError when the tracker cannot be reached or refuses the token."""
    text = _tessera.fleet_status(tracker, os.fspath(token_file) if token_file else "",
                                 os.fspath(tls_ca) if tls_ca else "")
    return json.loads(text)

"""Drives aria2's JSON-RPC with aria2p (PyPI), a client farm did not write (SPEC §16).

The same script runs against `farm serve` and against a real `aria2c --enable-rpc`, so what it checks is aria2's
behaviour, not farm's reading of it. Run by Tests/FarmRPCTests/Aria2pTests.swift:

    python3 drive_aria2p.py CONFIG.json

CONFIG holds: "port" (the RPC's), "secret", "dir" (where downloads go), "quick" ({"uris": [URL, MIRROR],
"out", "sha256"}), "slow" ([{"uri", "sha256"}, {"uri", "sha256"}]: throttled so they last seconds each),
"missing" (a URL answered 404) and "websocket" (whether to listen to the notifications). It prints one line a
check and "N passed, 0 failed" at the end; the first failure ends it with exit 1.
"""

import hashlib
import json
import os
import sys
import threading
import time
import urllib.error
import urllib.request

import aria2p

DEADLINE = 120
passed = 0


def check(condition, what):
    global passed
    if not condition:
        print(f"FAILED: {what}", flush=True)
        print(f"{passed} passed, 1 failed", flush=True)
        sys.exit(1)
    passed += 1
    print(f"ok: {what}", flush=True)


def until(what, probe, timeout=DEADLINE):
    """Polls probe() until it is truthy (its value is returned) or the deadline passes (a failure)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = probe()
            if last:
                return last
        except aria2p.ClientException as error:
            last = error
        time.sleep(0.2)
    check(False, f"{what} (last seen: {last!r})")


def raw(port, body):
    """POSTs body as is; returns (HTTP status, parsed answer)."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}/jsonrpc", data=body.encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def sha256(path):
    with open(path, "rb") as file:
        return hashlib.sha256(file.read()).hexdigest()


def main():
    config = json.load(open(sys.argv[1]))
    port, secret, folder = config["port"], config["secret"], config["dir"]
    client = aria2p.Client(host="http://127.0.0.1", port=port, secret=secret)
    api = aria2p.API(client)

    # Refusals, as aria2 words them.
    try:
        aria2p.Client(host="http://127.0.0.1", port=port, secret="wrong").get_version()
        check(False, "a wrong token is refused")
    except aria2p.ClientException as error:
        check(error.code == 1 and error.message == "Unauthorized", f"a wrong token is refused: {error}")
    try:
        aria2p.Client(host="http://127.0.0.1", port=port).get_version()
        check(False, "a missing token is refused")
    except aria2p.ClientException as error:
        check(error.code == 1 and error.message == "Unauthorized", f"a missing token is refused: {error}")
    status, answer = raw(port, '{"jsonrpc": "2.0", "id": "x", "method": "aria2.getVersion"')
    check(answer["error"] == {"code": -32700, "message": "Parse error."} and answer["id"] is None,
          f"malformed JSON is a parse error: {status} {answer}")
    status, answer = raw(port, '{"jsonrpc": "2.0", "method": "aria2.getVersion"}')
    check(answer["error"]["code"] == -32600 and status == 400, f"a call without an id is invalid: {status} {answer}")
    status, answer = raw(port, '"aria2.getVersion"')
    check(answer["error"]["code"] == -32600, f"a string is not a request: {status} {answer}")
    status, answer = raw(port, json.dumps({"jsonrpc": "2.0", "id": 7, "method": "aria2.nothing",
                                           "params": [f"token:{secret}"]}))
    check(answer["error"] == {"code": 1, "message": "No such method: aria2.nothing"} and answer["id"] == 7,
          f"an unknown method is refused: {status} {answer}")
    status, answer = raw(port, json.dumps([{"jsonrpc": "2.0", "id": 1, "method": "system.listNotifications"},
                                           {"jsonrpc": "2.0", "id": 2, "method": "aria2.getVersion"}]))
    check(status == 200 and [a["id"] for a in answer] == [1, 2] and answer[1]["error"]["message"] == "Unauthorized",
          f"a batch answers each call: {answer}")

    # What the server says of itself.
    methods = client.list_methods()
    for method in ["aria2.addUri", "aria2.tellStatus", "aria2.tellActive", "aria2.tellWaiting", "aria2.tellStopped",
                   "aria2.pauseAll", "aria2.unpauseAll", "aria2.remove", "aria2.changeGlobalOption",
                   "aria2.getGlobalStat", "system.multicall"]:
        check(method in methods, f"system.listMethods has {method}")
    notifications = client.list_notifications()
    for name in ["aria2.onDownloadStart", "aria2.onDownloadPause", "aria2.onDownloadStop",
                 "aria2.onDownloadComplete", "aria2.onDownloadError"]:
        check(name in notifications, f"system.listNotifications has {name}")
    check(client.get_version()["version"].count(".") == 2, "aria2.getVersion has a version")
    calls = client.multicall([{"methodName": "aria2.getVersion", "params": [f"token:{secret}"]},
                              {"methodName": "aria2.nothing", "params": [f"token:{secret}"]}])
    check(isinstance(calls[0], list) and "version" in calls[0][0] and calls[1]["code"] == 1,
          f"system.multicall answers each call: {calls}")

    # Notifications over WebSocket, heard from here on.
    heard = {}
    if config.get("websocket"):
        def hear(kind):
            return lambda api_or_gid, gid=None: heard.setdefault(kind, set()).add(gid or api_or_gid)
        listener = threading.Thread(target=client.listen_to_notifications, daemon=True, kwargs={
            "on_download_start": hear("start"), "on_download_pause": hear("pause"), "on_download_stop": hear("stop"),
            "on_download_complete": hear("complete"), "on_download_error": hear("error"),
            "timeout": 1, "handle_signals": False})
        listener.start()
        time.sleep(1)

    # One at a time, and a cap.
    check(api.set_global_options({"max-concurrent-downloads": "1", "max-overall-download-limit": "0"}),
          "changeGlobalOption takes max-concurrent-downloads")
    check(api.get_global_options().max_concurrent_downloads == 1, "getGlobalOption says 1 download at once")

    # A download at two mirrors with its options; its bytes on disk.
    quick = config["quick"]
    download = api.add_uris(quick["uris"], options={
        "dir": folder, "out": quick["out"], "checksum": "sha-256=" + quick["sha256"], "split": "2",
        "max-connection-per-server": "1", "header": ["X-Farm-Test: aria2p"]})
    gid = download.gid
    check(len(gid) == 16 and all(c in "0123456789abcdef" for c in gid), f"addUri answers a GID: {gid}")
    until("the download at mirrors completes", lambda: api.get_download(gid).status == "complete")
    path = os.path.join(folder, quick["out"])
    check(sha256(path) == quick["sha256"], f"its bytes are on disk at {path}")
    done = api.get_download(gid)
    check(done.files[0].path == __import__("pathlib").Path(path), f"getFiles names {path}: {done.files[0].path}")
    uris = [uri["uri"] for uri in client.get_files(gid)[0]["uris"]]
    check(set(uris) == set(quick["uris"]), f"getFiles has both mirrors: {uris}")
    check(int(done.completed_length) == os.path.getsize(path) == int(done.total_length), "lengths are the file's")
    check(gid in [d.gid for d in api.get_downloads() if d.status == "complete"], "tellStopped has it, complete")

    # Bytes of any kind download as they are, under their URL's name.
    anything = config["any"]
    gid = api.add_uris([anything["uri"]], options={"dir": folder}).gid
    until("the download of any kind completes", lambda: api.get_download(gid).status == "complete")
    path = os.path.join(folder, "archive.tar.gz")
    check(os.path.exists(path) and sha256(path) == anything["sha256"], f"a file of any kind is kept whole at {path}")

    # Two slow ones: one runs, the other waits.
    slow = [api.add_uris([item["uri"]], options={"dir": folder}).gid for item in config["slow"]]
    active = until("one slow download runs", lambda: [d["gid"] for d in client.tell_active(["gid"])])
    check(len(active) == 1 and active[0] in slow, f"tellActive has one of them: {active}")
    waiting = [d["gid"] for d in client.tell_waiting(0, 10, ["gid", "status"])]
    check(len(waiting) == 1 and waiting[0] in slow and waiting[0] != active[0], f"tellWaiting has the other: {waiting}")
    check(client.change_position(waiting[0], 0, "POS_SET") == 0, "changePosition puts it first")
    uris = [uri["uri"] for uri in client.get_uris(active[0])]
    check(uris == [config["slow"][slow.index(active[0])]["uri"]], f"getUris has its URI: {uris}")
    stat = client.get_global_stat()
    check(stat["numActive"] == "1" and stat["numWaiting"] == "1", f"getGlobalStat counts them, as strings: {stat}")
    status = client.tell_status(active[0], ["gid", "status", "totalLength", "completedLength", "files"])
    check(status["status"] == "active" and isinstance(status["completedLength"], str),
          f"tellStatus says active, with numbers as strings: {status}")

    # Pause every download, then resume.
    check(api.pause_all(), "pauseAll")
    until("nothing is active once paused", lambda: client.tell_active(["gid"]) == [])
    paused = until("both wait, paused",
                   lambda: sorted(d["gid"] for d in client.tell_waiting(0, 10, ["gid", "status"])
                                  if d["status"] == "paused") == sorted(slow))
    check(paused, "tellWaiting shows both paused")
    if config.get("websocket"):
        until("onDownloadPause heard", lambda: heard.get("pause"))
    check(api.resume_all(), "unpauseAll")
    running = until("one runs again", lambda: [d["gid"] for d in client.tell_active(["gid"])])

    # Remove the running one; the cap and two at once for the other.
    # The client's call, not aria2p's API.remove, which also removes the download's result.
    check(client.remove(running[0]) == running[0], "remove the running download")
    until("the removed one is neither active nor waiting",
          lambda: running[0] not in [d["gid"] for d in client.tell_active(["gid"])
                                     + client.tell_waiting(0, 10, ["gid"])])
    removed = until("tellStopped has it, removed",
                    lambda: [d for d in client.tell_stopped(0, 10, ["gid", "status"]) if d["gid"] == running[0]])
    check(removed[0]["status"] == "removed", f"its status says removed: {removed}")
    check(client.tell_status(running[0], ["status"])["status"] == "removed", "tellStatus finds it, removed")
    other = [g for g in slow if g != running[0]][0]
    check(api.set_global_options({"max-concurrent-downloads": "2", "max-overall-download-limit": "100K"}),
          "changeGlobalOption takes the cap")
    options = api.get_global_options()
    check(options.max_concurrent_downloads == 2 and options.max_overall_download_limit == 102400,
          f"getGlobalOption says 2 at once, 100K: {options.max_concurrent_downloads} {options.max_overall_download_limit}")

    until("the running download has a speed, as a string",
          lambda: int(client.tell_status(other, ["downloadSpeed"])["downloadSpeed"]) > 0)
    until("getGlobalStat sums the speeds", lambda: int(client.get_global_stat()["downloadSpeed"]) > 0)

    # One download paused by its GID while the other rules stand, then let go.
    check(client.pause(other) == other, "pause answers the GID")
    until("the paused download is paused", lambda: client.tell_status(other, ["status"])["status"] == "paused")
    check(other not in [d["gid"] for d in client.tell_active(["gid"])], "a paused download is not active")
    check(client.unpause(other) == other, "unpause answers the GID")
    until("the unpaused download waits or runs again",
          lambda: client.tell_status(other, ["status"])["status"] in ("waiting", "active"))
    api.set_global_options({"max-overall-download-limit": "0"})
    until("the other slow download completes", lambda: api.get_download(other).status == "complete")
    item = config["slow"][slow.index(other)]
    other_path = api.get_download(other).files[0].path
    check(sha256(other_path) == item["sha256"], f"its bytes are on disk at {other_path}")

    # A download that fails.
    missing = api.add_uris([config["missing"]], options={"dir": folder}).gid
    failed = until("the missing one fails", lambda: api.get_download(missing).status == "error" and
                   api.get_download(missing))
    check(str(failed.error_code) == "3", f"a 404 is aria2's error 3: {failed.error_code} {failed.error_message}")

    # Results purged.
    check(client.remove_download_result(missing) == "OK", "removeDownloadResult")
    check(missing not in [d["gid"] for d in client.tell_stopped(0, 10, ["gid"])], "the result is gone")
    check(client.purge_download_result() == "OK", "purgeDownloadResult")
    check(client.tell_stopped(0, 10, ["gid"]) == [], "tellStopped is empty")
    check(os.path.exists(path), "purging keeps the files")

    if config.get("websocket"):
        until("onDownloadComplete heard", lambda: gid in heard.get("complete", set()) and
              other in heard.get("complete", set()))
        check(gid in heard.get("start", set()) or other in heard.get("start", set()), f"onDownloadStart heard: {heard}")
        until("onDownloadStop heard", lambda: running[0] in heard.get("stop", set()))
        until("onDownloadError heard", lambda: missing in heard.get("error", set()))
        client.stop_listening()

    print(f"{passed} passed, 0 failed", flush=True)


main()

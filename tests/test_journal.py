"""The journal on its own: records, repair after torn writes at every write point, the archive,
foreign and corrupt files, and the same code on MicroPython with its real filesystem."""
import os
import random

import pytest

from firmware.controller import journal as journal_module
from firmware.controller.journal import Journal, JournalError, crc16, encode_record
from firmware.controller.settings import Settings
from firmware.engine.fen import START_FEN
from firmware.engine.notation import uci
from firmware.engine.uci_parse import parse_uci
from firmware.engine.position import Position
from host_sim.flash import FakeFlash, PowerCut
from tests.mpy import run_mpy

LINE = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6", "e1g1", "f7f6", "d2d4", "e5d4",
        "f3d4", "c6c5", "d4e2", "d8d1", "f1d1", "c8d7", "b1c3", "e8c8", "c1e3", "g8e7", "a1b1", "e7g6"]


def moves_of(texts, start=None):
    pos = Position(start)
    out = []
    for t in texts:
        m = parse_uci(pos, t)
        pos.make(m)
        out.append(m)
    return out


MOVES = moves_of(LINE)


def journal(flash, **kw):
    return Journal("", open_fn=flash.open, fs=flash, **kw)


def script(j):
    """A session: new game, moves, a take back, a settings change, more moves, the end.
    Returns the expected (moves, settings bytes) after each journal call, in order."""
    s = Settings(level=3)
    states = []
    j.start_game(s.to_bytes())
    states.append(([], s.to_bytes()))
    played = []
    for i, m in enumerate(MOVES):
        j.record_move(m)
        played.append(m)
        states.append((list(played), s.to_bytes()))
        if i == 7:
            j.record_undo()
            played.pop()
            states.append((list(played), s.to_bytes()))
            j.record_move(m)
            played.append(m)
            states.append((list(played), s.to_bytes()))
        if i == 12:
            s.level = 9
            j.record_settings(s.to_bytes())
            states.append((list(played), s.to_bytes()))
    j.record_end("1/2-1/2", 6)
    states.append((list(played), s.to_bytes()))
    return states


def test_records_round_trip():
    flash = FakeFlash()
    states = script(journal(flash))
    saved = journal(flash).load()
    assert saved.found and not saved.repaired
    assert saved.moves == states[-1][0]
    assert saved.settings == states[-1][1]
    assert saved.result == "1/2-1/2" and saved.reason == 6
    assert saved.start_fen == START_FEN


def test_every_write_point_torn_resumes_at_the_last_complete_record():
    clean = FakeFlash()
    complete = []
    clean.observer = lambda i: complete.append(None)
    states = script(journal(clean))
    # map each operation to the journal state after the journal call it belongs to
    n_ops = len(clean.ops)
    rng = random.Random(7)
    checked = 0
    for k in range(n_ops):
        for torn in {0, 1, rng.randrange(0, max(1, len(clean.ops[k][2]))), None}:
            flash = FakeFlash()
            flash.cut_at = k
            flash.torn_bytes = torn
            done = []
            try:
                script_until_cut(journal(flash), done)
            except PowerCut:
                pass
            else:
                raise AssertionError("no cut at %d" % k)
            flash.cut_at = None
            j = journal(flash)
            saved = j.load()
            expected = states[len(done) - 1] if done else None
            if expected is None:
                assert not saved.found or saved.moves == []
            else:
                assert saved.moves == expected[0], (k, torn)
                assert saved.settings == expected[1]
            # the repaired journal takes appends and reads back whole
            before = list(saved.moves)
            j2 = journal(flash)
            j2.load()
            pos = Position()
            for m in before:
                pos.make(m)
            nxt = parse_uci(pos, next_legal(pos))
            if saved.found:
                j2.record_move(nxt)
                assert journal(flash).load().moves == before + [nxt]
            checked += 1
    assert checked >= 3 * n_ops


def next_legal(pos):
    from firmware.engine.rules import legal_moves

    return sorted(uci(m) for m in legal_moves(pos))[0]


def script_until_cut(j, done):
    """script(), recording each journal call that returned (so PowerCut tells how far it got)."""
    calls = []
    s = Settings(level=3)
    calls.append(lambda: j.start_game(s.to_bytes()))
    for i, m in enumerate(MOVES):
        calls.append(lambda m=m: j.record_move(m))
        if i == 7:
            calls.append(lambda: j.record_undo())
            calls.append(lambda m=m: j.record_move(m))
        if i == 12:
            def change():
                s.level = 9
                j.record_settings(s.to_bytes())
            calls.append(change)
    calls.append(lambda: j.record_end("1/2-1/2", 6))
    for call in calls:
        call()
        done.append(None)


def test_corrupt_record_in_the_middle_stops_there_and_is_repaired():
    flash = FakeFlash()
    j = journal(flash)
    j.start_game(Settings().to_bytes())
    for m in MOVES[:10]:
        j.record_move(m)
    data = flash.files["game.jnl"]
    # flip a bit inside the 6th move record (move records are 8 bytes, the last 5 are 6..10)
    start = len(data) - 8 * 5
    data[start + 4] ^= 0x10
    saved = journal(flash).load()
    assert saved.repaired and saved.moves == MOVES[:5]
    assert journal(flash).load().moves == MOVES[:5]  # rewritten clean


def test_foreign_or_missing_file_means_a_fresh_start():
    flash = FakeFlash()
    assert not journal(flash).load().found
    flash.files["game.jnl"] = bytearray(b"this is not a journal at all")
    saved = journal(flash).load()
    assert not saved.found and saved.settings is None
    j = journal(flash)
    j.start_game(Settings().to_bytes())
    j.record_move(MOVES[0])
    assert journal(flash).load().moves == MOVES[:1]


def test_unfinished_rewrite_is_finished_or_dropped():
    flash = FakeFlash()
    j = journal(flash)
    j.start_game(Settings().to_bytes())
    j.record_move(MOVES[0])
    ops_before = len(flash.ops)
    j.start_game(Settings().to_bytes())  # archive + truncate .new, write .new (record by record), remove, rename
    rewrite = flash.ops[ops_before:]
    kinds = [op[0] for op in rewrite]
    last_truncate = len(kinds) - 1 - kinds[::-1].index("truncate")
    writes = kinds[last_truncate + 1:-2]
    assert kinds[-2:] == ["remove", "rename"]
    assert len(writes) >= 3 and set(writes) == {"write"}  # header, settings, the new game's start
    after_remove = FakeFlash.replay(flash.ops, len(flash.ops) - 1)
    assert "game.jnl" not in after_remove.files and "game.jnl.new" in after_remove.files
    saved = journal(after_remove).load()
    assert saved.found and saved.moves == [] and saved.repaired  # the new game, finished
    before_remove = FakeFlash.replay(flash.ops, len(flash.ops) - 2)
    saved = journal(before_remove).load()
    assert saved.moves == MOVES[:1]  # the old game: the rewrite never happened
    assert "game.jnl.new" not in before_remove.files


def test_archive_keeps_the_last_games_once_each():
    flash = FakeFlash()
    j = journal(flash, max_games=3)
    j.start_game(Settings().to_bytes())
    for n in range(5):
        for m in MOVES[: n + 1]:
            j.record_move(m)
        j.record_end("1-0", 8)
        j.start_game(None)
    games = journal(flash, max_games=3).games()
    assert [len(g.moves) for g in games] == [3, 4, 5]
    assert all(g.result == "1-0" and g.reason == 8 for g in games)
    assert [g.moves for g in games] == [MOVES[:3], MOVES[:4], MOVES[:5]]
    # a cut between archiving and starting the next game does not archive it twice
    j = journal(flash, max_games=3)
    j.load()
    j.record_move(MOVES[0])
    journal_module._rare("archive", j, j._state)
    j.start_game(None)
    assert len(journal(flash, max_games=3).games()) == 3
    assert journal(flash, max_games=3).games()[-1].moves == MOVES[:1]


def test_custom_start_position_is_kept():
    fen = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
    flash = FakeFlash()
    j = journal(flash)
    j.start_game(None, fen)
    j.record_move(moves_of(["e7e8n"], fen)[0])
    saved = journal(flash).load()
    assert saved.start_fen == fen and [uci(m) for m in saved.moves] == ["e7e8n"]


def test_bad_result_is_refused():
    j = journal(FakeFlash())
    j.start_game(None)
    with pytest.raises(JournalError):
        j.record_end("2-0", 1)


def test_crc_and_record_layout():
    assert crc16(b"123456789") == 0x29B1  # CRC-16/CCITT-FALSE check value
    rec = encode_record(4, b"\x01\x02")
    assert rec[0] == 0xA5 and rec[1] == 4 and rec[2:4] == b"\x00\x02" and len(rec) == 8


def test_journal_on_micropython_with_its_real_filesystem(tmp_path):
    d = str(tmp_path)
    out = run_mpy(
        "from firmware.controller.journal import Journal\n"
        "from firmware.controller.settings import Settings\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.uci_parse import parse_uci\n"
        "j = Journal(%r)\n"
        "j.load()\n"
        "j.start_game(Settings(level=5).to_bytes())\n"
        "pos = Position()\n"
        "for t in %r:\n"
        "    m = parse_uci(pos, t)\n"
        "    pos.make(m)\n"
        "    j.record_move(m)\n"
        "j.record_undo()\n"
        "f = open(%r + '/game.jnl', 'ab')\n"
        "f.write(b'\\xa5\\x04\\x00')\n"  # a torn record at the end
        "f.close()\n"
        "s = Journal(%r).load()\n"
        "print(len(s.moves), s.repaired, Settings.from_bytes(s.settings).level)\n"
        "j2 = Journal(%r)\n"
        "j2.load()\n"
        "j2.start_game(None)\n"
        "print(len(j2.games()), len(j2.games()[0].moves))\n" % (d, LINE[:6], d, d, d),
        heapsize="210K",
    )
    assert out.split() == ["5", "True", "5", "1", "5"]
    assert sorted(os.listdir(d)) == ["game.jnl", "games.jnl"]


def test_flash_files_ask_stat_for_existence_not_open(tmp_path):
    """exists() asks fs.stat where there is one: on a board's littlefs an open allocates a
    1,148-byte file object, at the boot's peak of memory. Without stat it opens the file."""
    import os

    from firmware.controller.flashfile import FlashFiles

    opened = []

    def counting_open(name, mode="r"):
        opened.append(name)
        return open(name, mode)

    (tmp_path / "game.jnl").write_bytes(b"x")
    files = FlashFiles(str(tmp_path), counting_open, os)
    assert files.exists(files.name("game.jnl")) and not files.exists(files.name("online.keep"))
    assert opened == []

    class NoStat:
        remove = staticmethod(os.remove)
        rename = staticmethod(os.rename)

    files = FlashFiles(str(tmp_path), counting_open, NoStat())
    assert files.exists(files.name("game.jnl")) and not files.exists(files.name("online.keep"))
    assert len(opened) == 2


def test_a_full_archive_is_rewritten_a_record_at_a_time():
    """A new game when the archive holds max_games games: no read or write of the whole
    archive (on a fragmented board heap one block of its size may not exist), one record's
    bytes at a time, and the same archive as before."""
    flash = FakeFlash()
    j = journal(flash, max_games=10)
    j.start_game(Settings().to_bytes())
    for n in range(11):
        for m in MOVES[: 14 + n]:
            j.record_move(m)
        j.record_end("1-0", 8)
        j.start_game(None)
    sizes = []

    def watched_open(name, mode="r"):
        f = flash.open(name, mode)
        read, write = f.read, f.write

        def watched_read(n=-1):
            data = read(n)
            sizes.append(("read", name, len(data)))
            return data

        def watched_write(data):
            sizes.append(("write", name, len(data)))
            return write(data)

        f.read, f.write = watched_read, watched_write
        return f

    j = Journal("", open_fn=watched_open, fs=flash, max_games=10)
    j.load()
    for m in MOVES:
        j.record_move(m)
    j.record_end("0-1", 8)
    del sizes[:]
    j.start_game(None)
    archive_size = len(flash.files["games.jnl"])
    one_game = 5 + 2 * len(MOVES) + 6  # the payload, the record's magic, type, length and check
    assert any(kind == "write" and name == "games.jnl.new" for kind, name, _ in sizes)  # it was rewritten
    assert max(size for _, _, size in sizes) <= one_game < archive_size // 5
    games = journal(flash, max_games=10).games()
    assert [len(g.moves) for g in games] == [14 + n for n in range(2, 11)] + [len(MOVES)]
    assert games[-1].result == "0-1"


def test_a_full_archive_rewrite_on_micropython_with_its_real_filesystem(tmp_path):
    """The streamed rewrite (the archive read a record at a time while game.jnl's `.new` and
    the archive's are written) on the unix port's real files: with room for 2 games, the
    third and fourth drop the oldest, and the newest comes last."""
    d = str(tmp_path)
    out = run_mpy(
        "from firmware.controller.journal import Journal\n"
        "from firmware.engine.position import Position\n"
        "from firmware.engine.uci_parse import parse_uci\n"
        "j = Journal(%r, max_games=2)\n"
        "j.load()\n"
        "j.start_game(None)\n"
        "for n in range(1, 5):\n"
        "    pos = Position()\n"
        "    for t in %r[:n]:\n"
        "        m = parse_uci(pos, t)\n"
        "        pos.make(m)\n"
        "        j.record_move(m)\n"
        "    j.record_end('1-0', 8)\n"
        "    j.start_game(None)\n"
        "print([len(g.moves) for g in Journal(%r, max_games=2).games()])\n" % (d, LINE[:4], d),
        heapsize="210K",
    )
    assert out.strip().split("\n")[-1] == "[3, 4]", out
    assert sorted(os.listdir(d)) == ["game.jnl", "games.jnl"]

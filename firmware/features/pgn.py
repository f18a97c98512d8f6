"""PGN export of a game record (a feature on demand, for the USB serial console and the
simulator).

    text = game_pgn(start_fen, moves, result, tags={"Event": "Casual game"})

`moves` are engine moves legal from `start_fen` (the journal's records); moves that do not
replay (never expected: the journal validates on load) end the movetext with a comment rather
than raising. Lines are wrapped at 79 characters as the PGN standard asks.
"""
from firmware.engine.constants import START_FEN
from firmware.engine.notation import san
from firmware.engine.position import Position
from firmware.engine.rules import legal_moves

SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_DEFAULT_TAGS = {"Event": "Reedchess game", "Site": "?", "Date": "????.??.??", "Round": "?",
                 "White": "?", "Black": "?"}


def _escape(value):
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def movetext_tokens(start_fen, moves):
    """SAN tokens with move numbers, e.g. ['1.', 'e4', 'e5', ...] (allocates)."""
    pos = Position(start_fen, len(moves) + 8)
    out = []
    for i in range(len(moves)):
        move = moves[i]
        if move not in legal_moves(pos):
            out.append("{illegal move %d in record}" % (i + 1))
            break
        if pos.stm == 0:
            out.append("%d." % pos.fullmove)
        elif i == 0:
            out.append("%d..." % pos.fullmove)
        out.append(san(pos, move))
        pos.make(move)
    return out


def game_pgn(start_fen, moves, result="*", tags=None):
    """The PGN text of one game (ends with a blank line)."""
    all_tags = dict(_DEFAULT_TAGS)
    if tags:
        for k in tags:
            all_tags[k] = tags[k]
    all_tags["Result"] = result
    lines = []
    for k in SEVEN_TAGS:
        lines.append('[%s "%s"]' % (k, _escape(all_tags[k])))
    extra = sorted(k for k in all_tags if k not in SEVEN_TAGS)
    if start_fen and start_fen != START_FEN:
        lines.append('[SetUp "1"]')
        lines.append('[FEN "%s"]' % start_fen)
    for k in extra:
        if k not in ("SetUp", "FEN"):
            lines.append('[%s "%s"]' % (k, _escape(all_tags[k])))
    lines.append("")
    line = ""
    for tok in movetext_tokens(start_fen or START_FEN, moves) + [result]:
        if line and len(line) + 1 + len(tok) > 79:
            lines.append(line)
            line = tok
        else:
            line = line + " " + tok if line else tok
    lines.append(line)
    lines.append("")
    return "\n".join(lines) + "\n"


def pgn_of(start_fen, moves, result, number, tags=None):
    all_tags = {"Event": "Reedchess game", "Round": str(number)}
    if tags:
        for k in tags:
            all_tags[k] = tags[k]
    return game_pgn(start_fen, moves, result, all_tags)


def texts(app):
    """PGN of every archived game of the App's journal and of the current one (allocates)."""
    out = []
    n = 0
    if app.journal is not None:
        try:
            for g in app.journal.games():
                n += 1
                out.append(pgn_of(g.start_fen, g.moves, g.result, n))
        except OSError:
            pass
    n += 1
    out.append(pgn_of(app.game.start_fen, app.game.moves(), app.game.result, n))
    return out

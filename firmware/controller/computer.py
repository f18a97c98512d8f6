"""The computer's side of the game: book, search limits per level, the search position.

    comp = Computer(searcher, book=None, seed=0)
    move = comp.book_move(game.position, level_index)          # 0 when out of book
    pos = comp.prepare(game.position, ponder_move=0)            # the search's own Position
    limits = comp.limits(level_index, clock_state, ponder=False)
    limits = comp.hint_limits(level_index)

The search never runs on the game position: the board sync and the controller keep using
that one from inside the search's poll function (they make and take back moves on it), so
the search gets a mirror - same board, same repetition history - in a Position allocated
once here, with room for the search's deepest line (search.MAX_PLY) and a ponder move.
Its repetition history holds only the positions since the last capture or pawn move (the
halfmove clock, at most 100): no earlier one can repeat, and the search looks no further back.

The level table (firmware.engine.levels, ~3.4 KB of heap while loaded) is imported for the
calls that need it (the limits of a search, a level change, the start of a clock level) and
released after; what the main loop reads every pass (clock or analysis level) and the book
depth of each level are copied here once.
"""
from array import array

from firmware import loader

from firmware.engine.position import Position
from firmware.engine.search import MAX_PLY
from firmware.engine.timeman import Limits

HINT_MS = 3000
HINT_NODES = 4000
SEARCH_PLIES = MAX_PLY + 2  # the search's deepest line (it stops 2 short of capacity) + a ponder move
_PRIOR_MAX = 100  # halfmove clock at which every line is a draw: no older position matters


class Computer:
    def __init__(self, searcher, book=None, seed=0):
        self.searcher = searcher
        self.book = book  # an open engine.book.Book, a book file's path (opened per lookup), or None
        self.seed = seed
        self._book_rng = 0  # the on-demand book's generator state between lookups (0: not yet seeded)
        self.position = Position(None, SEARCH_PLIES)
        lv = _levels()
        try:
            # per level 1 clock, 2 analysis, 0 other (uses_clock / is_analysis, every idle
            # pass), and its book depth (each search asks)
            self._kinds, self._book_plies = lv.kinds_and_book_plies()
            self._default = lv.DEFAULT_LEVEL
        finally:
            _release()
        self._level = -1
        self._fixed = None  # the Limits of level _level when no clock sets them (see limits)
        if book is not None and not isinstance(book, str):
            book.seed(seed)

    def level_names(self):
        lv = _levels()
        try:
            return tuple(entry.name for entry in lv.LEVELS)
        finally:
            _release()

    def level_name(self, index):
        lv = _levels()
        try:
            return lv.LEVELS[index].name
        finally:
            _release()

    def level_count(self):
        return len(self._kinds)

    def default_level(self):
        return self._default

    def uses_clock(self, index):
        return self._kinds[index] == 1

    def clock_ms(self, index):
        """(game time ms, increment ms, moves per control) of a clock level."""
        lv = _levels()
        try:
            entry = lv.LEVELS[index]
            return entry.value, entry.inc_ms, entry.moves
        finally:
            _release()

    def is_analysis(self, index):
        return self._kinds[index] == 2

    def book_move(self, position, index):
        """A book move for the level (within its book depth), or 0."""
        if self.book is None:
            return 0
        plies = self._book_plies[index]
        if not plies:
            return 0
        if isinstance(self.book, str):
            return self._book_on_demand(position, plies)
        try:
            return self.book.choose(position, max_ply=plies)
        except OSError:
            self.book = None  # the file went away: play on without it
            return 0

    def _book_on_demand(self, position, plies):
        """book_move with a path: import firmware.engine.book, open the file (checked at boot,
        so no checksum pass here), choose with the generator state kept from the last lookup,
        close, and release the module again (it costs ~8 KB of heap while loaded). The same
        moves as an open Book seeded once."""
        if (position.fullmove - 1) * 2 + (1 if position.stm else 0) >= plies:
            return 0  # past the level's book depth: no need to touch the file
        bookmod = loader.borrow(_BOOK)
        move = 0
        try:
            # the search's move buffer is idle here: the book needs no 1 KB one of its own
            buffer = self.searcher.moves if self.searcher is not None else None
            book = bookmod.open_book(self.book, verify=False, moves_buffer=buffer)
        except bookmod.BookError:
            self.book = None  # the file went away or broke: play on without it
        else:
            if self._book_rng:
                book._rng_state = self._book_rng
            else:
                book.seed(self.seed)
            try:
                move = book.choose(position, max_ply=plies)
            except OSError:
                self.book = None
            self._book_rng = book._rng_state
            book.close()
        bookmod = book = None
        loader.release(_BOOK)
        return move

    def prepare(self, game_position, ponder_move=0):
        """Copy `game_position` (with its repetition history) into the search position and
        play `ponder_move` on it if given. Returns the search position."""
        pos = self.position
        pos.assign(game_position)
        self._copy_history(game_position, pos)
        if ponder_move:
            pos.make(ponder_move)
        return pos

    @staticmethod
    def _copy_history(src, pos):
        """Give `pos` the repetition history of `src`: the hashes of the positions before it,
        back to its last capture or pawn move (`src.halfmove` of them, at most _PRIOR_MAX, as
        far as `src` knows them), oldest first, in arrays of exactly that length."""
        n = src.halfmove if src.halfmove < _PRIOR_MAX else _PRIOR_MAX
        n_prior = len(src.prior_lo)
        if n > src.ply + n_prior:
            n = src.ply + n_prior
        lo = array("i", bytes(4 * n))
        hi = array("i", bytes(4 * n))
        k = src.ply - n  # index in src's history of the oldest one (negative: in its prior)
        for i in range(n):
            if k < 0:
                lo[i] = src.prior_lo[n_prior + k]
                hi[i] = src.prior_hi[n_prior + k]
            else:
                lo[i] = src.hist_lo[k]
                hi[i] = src.hist_hi[k]
            k += 1
        pos.prior_lo = lo
        pos.prior_hi = hi

    def set_level(self, index):
        """Configure the searcher for level `index` (evaluation noise of fun levels)."""
        if index != self._level:
            lv = _levels()
            try:
                lv.apply_level(self.searcher, index, self.seed)
                slots = self.searcher.tt.size  # a rated level's budget depends on it (levels.table_nodes)
                self._fixed = None if self._kinds[index] == 1 else lv.limits_for_level(index, None, slots)
            finally:
                _release()
            self._level = index

    def limits(self, index, clock_state=None, ponder=False):
        """The Limits of a search at level `index`. For the level set last (set_level, which
        the App calls before every search) whose limits no clock changes: a copy of the ones
        set_level asked for, so a search's start does not load the level table (~23 ms on an
        RP2040)."""
        t = self._fixed if index == self._level else None
        if t is not None:
            return Limits(t.depth, t.nodes, t.movetime_ms, 0, 0, 0, 0, 0, t.infinite, ponder, t.mate)
        lv = _levels()
        try:
            limits = lv.limits_for_level(index, clock_state, self.searcher.tt.size)
        finally:
            _release()
        if ponder:
            limits.ponder = True
        return limits

    def hint_limits(self, index):
        lv = _levels()
        try:
            if lv.LEVELS[index].kind in (lv.DEPTH, lv.FUN):
                return lv.limits_for_level(index)
            return lv.Limits(movetime_ms=HINT_MS, nodes=HINT_NODES)
        finally:
            _release()


_LEVELS = "firmware.engine.levels"  # the level table, borrowed for each call (~3 KB of heap)
_BOOK = "firmware.engine.book"  # the book's reader, borrowed for each lookup (~8 KB)


def _levels():
    """firmware.engine.levels for a call; hand it back with _release()."""
    return loader.borrow(_LEVELS)


def _release():
    loader.release(_LEVELS)

"""What Searcher.search() returns. Its own module, loaded by the first search() call: the
firmware on a board searches with iterate() and never builds one, so this class does not
take a board's heap."""


class Result:
    """What a finished search returns (see Searcher.search)."""

    def __init__(self, best_move, ponder_move, score, depth, nodes, time_ms=0, mate_in=None):
        self.best_move = best_move
        self.ponder_move = ponder_move
        self.score = score
        self.depth = depth
        self.nodes = nodes
        self.time_ms = time_ms
        self.mate_in = mate_in

"""Hardware faults that come while playing (a sensor chip lost or back, the display gone).

The main loop only compares `len(hw.faults)` with the count it last said; when they differ it
loads this module for the news and releases it after (App.service), so the wording costs no
resident heap on a board whose devices all answer.
"""


def news(app, now_ms):
    """Say the faults that came since the last report on the log and, for a while, on the
    display; the game goes on."""
    faults = app.faults
    if app.log:
        for line in faults[app._faults_seen:]:
            app.log("fault: " + line)
    app._faults_seen = len(faults)
    app.controller.say(faults[-1], now_ms)

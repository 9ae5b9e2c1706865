// CFarmTerminal: the terminal of `farm top`, over ncurses, as a handful of plain C functions.
//
// Why C: ncurses is mostly macros (getmaxyx, stdscr, attribute and key constants) that Swift
// cannot import, and a crash of the view must give the terminal back from a signal handler, which
// is no place for Swift code. Nothing of ncurses leaks through this header: Swift sees ints and
// UTF-8 strings. One screen per process, used from one thread. Every symbol is prefixed `cfarm_term_`.
#ifndef CFARM_TERMINAL_H
#define CFARM_TERMINAL_H

#include <stdint.h>

/// How a span of text is drawn.
enum cfarm_term_style {
    CFARM_TERM_NORMAL = 0,
    CFARM_TERM_BOLD = 1,
    /// Column headings and the selected row.
    CFARM_TERM_REVERSE = 2,
    CFARM_TERM_DIM = 3,
    /// Errors (red when the terminal has colours, else bold).
    CFARM_TERM_BAD = 4,
    /// Paused, confirmations (yellow, else bold).
    CFARM_TERM_WARN = 5,
    /// Finished (green, else normal).
    CFARM_TERM_GOOD = 6,
};

/// What `cfarm_term_key` read.
enum cfarm_term_key_kind {
    /// Nothing is waiting.
    CFARM_TERM_KEY_NONE = 0,
    /// A character (its code point is stored), including control characters such as Enter or Esc.
    CFARM_TERM_KEY_CHAR = 1,
    CFARM_TERM_KEY_UP = 2,
    CFARM_TERM_KEY_DOWN = 3,
    CFARM_TERM_KEY_LEFT = 4,
    CFARM_TERM_KEY_RIGHT = 5,
    CFARM_TERM_KEY_PAGE_UP = 6,
    CFARM_TERM_KEY_PAGE_DOWN = 7,
    CFARM_TERM_KEY_HOME = 8,
    CFARM_TERM_KEY_END = 9,
    CFARM_TERM_KEY_ENTER = 10,
    CFARM_TERM_KEY_BACKSPACE = 11,
    /// The terminal changed size: the screen size is already updated.
    CFARM_TERM_KEY_RESIZE = 12,
    /// A function key this program has no use for.
    CFARM_TERM_KEY_OTHER = 13,
};

/// Takes over the terminal (alternate screen, no echo, keys unbuffered, cursor hidden) and installs
/// the crash handlers. Returns 0, or -1 when the terminal cannot be driven (unknown $TERM), in
/// which case nothing was changed.
int cfarm_term_open(void);

/// Gives the terminal back as it was found and removes the crash handlers. Idempotent.
void cfarm_term_close(void);

/// Whether the locale's character set is UTF-8 (else only ASCII is drawn faithfully).
int cfarm_term_utf8(void);

int cfarm_term_rows(void);
int cfarm_term_cols(void);

/// Draws `utf8` at row `y`, column `x` in `style`, stopping at the right edge (never wrapping).
/// Returns the column after the last cell written.
int cfarm_term_put(int y, int x, const char *utf8, int style);

/// Clears row `y` from column `x` to its end.
void cfarm_term_clear_line(int y, int x);

/// Sends what changed since the last call to the terminal (and nothing else).
void cfarm_term_refresh(void);

/// Reads one key without waiting. Returns a `cfarm_term_key_kind`; for CHAR, `*character` is set.
int cfarm_term_key(uint32_t *character);

#endif

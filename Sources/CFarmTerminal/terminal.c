// The ncurses side of `farm top` (see CFarmTerminal.h). Every ncurses call of the program is here.
// wcwidth and the wide-character curses calls are X/Open extensions.
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#define NCURSES_WIDECHAR 1
#include "CFarmTerminal.h"

#include <langinfo.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <string.h>
#include <wchar.h>

static SCREEN *screen;
/// Read by the crash handler: set only while the screen is ours.
static volatile sig_atomic_t screen_open;
static int has_colour;

// MARK: crash handlers

// A crash of the view (a Swift trap is SIGILL on x86-64 and SIGTRAP on arm64) must not leave the
// terminal in the alternate screen with echo off. The handler gives the terminal back, puts back
// whatever handled the signal before (the Swift runtime's backtracer, or the default) and raises
// it again, so the process still dies of it, with its report printed on a sane terminal. endwin is
// not async-signal-safe; a dying process has nothing better to try.
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGTRAP};
#define CRASH_SIGNAL_COUNT (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction previous_actions[CRASH_SIGNAL_COUNT];
static int handlers_installed;
// A stack overflow can only be handled on a stack of its own.
static char crash_stack[1 << 16];

static void restore_crash_handlers(void) {
    if (!handlers_installed) return;
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) sigaction(crash_signals[i], &previous_actions[i], NULL);
    handlers_installed = 0;
}

static void on_crash(int sig) {
    if (screen_open) {
        screen_open = 0;
        endwin();
    }
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) {
        if (crash_signals[i] == sig) sigaction(sig, &previous_actions[i], NULL);
    }
    // Pending until this handler returns; a fault re-executes its instruction and faults again anyway.
    raise(sig);
}

static void install_crash_handlers(void) {
    if (handlers_installed) return;
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t stack = {.ss_sp = crash_stack, .ss_size = sizeof crash_stack, .ss_flags = 0};
        sigaltstack(&stack, NULL);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_crash;
    action.sa_flags = SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < CRASH_SIGNAL_COUNT; i++) sigaction(crash_signals[i], &action, &previous_actions[i]);
    handlers_installed = 1;
}

// MARK: screen

int cfarm_term_open(void) {
    if (screen) return 0;
    // Only the character type: a numeric locale with decimal commas would change how numbers parse.
    setlocale(LC_CTYPE, "");
    screen = newterm(NULL, stdout, stdin);
    if (!screen) return -1;
    // A process started from a thread that blocks signals (as Dispatch's do) inherits that mask: it
    // would never see a resize, a ^Z or a hang-up. These are the terminal's to deliver.
    sigset_t terminal_signals;
    sigemptyset(&terminal_signals);
    int wanted[] = {SIGWINCH, SIGTSTP, SIGCONT, SIGHUP, SIGINT, SIGTERM, SIGABRT};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) sigaddset(&terminal_signals, wanted[i]);
    sigprocmask(SIG_UNBLOCK, &terminal_signals, NULL);
    set_term(screen);
    install_crash_handlers();
    screen_open = 1;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    leaveok(stdscr, TRUE);
    curs_set(0);
    // Esc alone is a key here (back): do not wait a second to tell it from an escape sequence.
    set_escdelay(25);
    has_colour = has_colors();
    if (has_colour) {
        start_color();
        use_default_colors();
        init_pair(1, COLOR_RED, -1);
        init_pair(2, COLOR_YELLOW, -1);
        init_pair(3, COLOR_GREEN, -1);
    }
    return 0;
}

void cfarm_term_close(void) {
    if (!screen) return;
    if (screen_open) {
        screen_open = 0;
        curs_set(1);
        endwin();
    }
    restore_crash_handlers();
    delscreen(screen);
    screen = NULL;
}

int cfarm_term_utf8(void) {
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (strcmp(codeset, "UTF-8") == 0 || strcmp(codeset, "utf8") == 0);
}

int cfarm_term_rows(void) { return screen ? getmaxy(stdscr) : 0; }
int cfarm_term_cols(void) { return screen ? getmaxx(stdscr) : 0; }

static attr_t attributes(int style) {
    switch (style) {
    case CFARM_TERM_BOLD: return A_BOLD;
    case CFARM_TERM_REVERSE: return A_REVERSE;
    case CFARM_TERM_DIM: return A_DIM;
    case CFARM_TERM_BAD: return has_colour ? COLOR_PAIR(1) | A_BOLD : A_BOLD;
    case CFARM_TERM_WARN: return has_colour ? COLOR_PAIR(2) | A_BOLD : A_BOLD;
    case CFARM_TERM_GOOD: return has_colour ? COLOR_PAIR(3) : A_NORMAL;
    default: return A_NORMAL;
    }
}

int cfarm_term_put(int y, int x, const char *utf8, int style) {
    if (!screen || y < 0 || y >= getmaxy(stdscr)) return x;
    int cols = getmaxx(stdscr);
    if (x < 0 || x >= cols) return x;
    attrset(attributes(style));
    move(y, x);
    mbstate_t state;
    memset(&state, 0, sizeof state);
    const char *p = utf8;
    size_t left = strlen(utf8);
    while (left > 0) {
        wchar_t wc;
        size_t used = mbrtowc(&wc, p, left, &state);
        if (used == (size_t)-1 || used == (size_t)-2) {
            // Not valid in this locale: one byte becomes one '?', and decoding starts afresh.
            wc = L'?';
            used = 1;
            memset(&state, 0, sizeof state);
        } else if (used == 0) {
            break;
        }
        int width = wcwidth(wc);
        if (width < 0) {
            wc = L'?';
            width = 1;
        }
        // Never past the right edge: ncurses would wrap onto the next row.
        if (x + width > cols) break;
        addnwstr(&wc, 1);
        x += width;
        p += used;
        left -= used;
    }
    attrset(A_NORMAL);
    return x;
}

void cfarm_term_clear_line(int y, int x) {
    if (!screen || y < 0 || y >= getmaxy(stdscr) || x >= getmaxx(stdscr)) return;
    move(y, x < 0 ? 0 : x);
    clrtoeol();
}

void cfarm_term_refresh(void) {
    if (screen) refresh();
}

int cfarm_term_key(uint32_t *character) {
    if (!screen) return CFARM_TERM_KEY_NONE;
    wint_t key;
    switch (get_wch(&key)) {
    case OK:
        *character = (uint32_t)key;
        return CFARM_TERM_KEY_CHAR;
    case KEY_CODE_YES:
        switch (key) {
        case KEY_UP: return CFARM_TERM_KEY_UP;
        case KEY_DOWN: return CFARM_TERM_KEY_DOWN;
        case KEY_LEFT: return CFARM_TERM_KEY_LEFT;
        case KEY_RIGHT: return CFARM_TERM_KEY_RIGHT;
        case KEY_PPAGE: return CFARM_TERM_KEY_PAGE_UP;
        case KEY_NPAGE: return CFARM_TERM_KEY_PAGE_DOWN;
        case KEY_HOME: return CFARM_TERM_KEY_HOME;
        case KEY_END: return CFARM_TERM_KEY_END;
        case KEY_ENTER: return CFARM_TERM_KEY_ENTER;
        case KEY_BACKSPACE: return CFARM_TERM_KEY_BACKSPACE;
        case KEY_RESIZE:
            // The size is new and the old picture meaningless: repaint everything on the next refresh.
            clearok(curscr, TRUE);
            return CFARM_TERM_KEY_RESIZE;
        default: return CFARM_TERM_KEY_OTHER;
        }
    default:
        return CFARM_TERM_KEY_NONE;
    }
}

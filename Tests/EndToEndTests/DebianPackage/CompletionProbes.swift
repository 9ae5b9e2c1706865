/// Scripts that ask a shell what it completes a command line to, as a user's Tab would, and print each
/// candidate on a line of its own. Each takes the directory of the completion file and the line.
enum CompletionProbes {
    /// bash: sources the completion file and calls the function it registered for `farm` with COMP_WORDS
    /// and COMP_CWORD set as readline would.
    static let bash = #"""
        source "$1/farm"
        read -ra COMP_WORDS <<<"$2"
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
        function=$(complete -p farm | sed -E 's/.* -F ([^ ]+) .*/\1/')
        "$function" farm "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf '%s\n' "${COMPREPLY[@]}"
        """#

    /// zsh: its completion runs only inside the line editor, so an interactive zsh runs under zpty, with
    /// the directory first in $fpath; Tab on the line, and compadd wrapped to print each match (the
    /// technique of zsh-capture-completion). Run with `zsh -f`.
    static let zsh = #"""
        zmodload zsh/zpty
        zpty z zsh -f -i
        zpty -w z "PROMPT="
        zpty -w z "fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
        zpty -w z "bindkey '^I' complete-word"
        zpty -w z "null-line () { echo -E - \$'\\0' }"
        zpty -w z "compprefuncs=( null-line )"
        zpty -w z "comppostfuncs=( null-line exit )"
        zpty -w z "zstyle ':completion:*' list-grouped false"
        zpty -w z "zstyle ':completion:*' insert-tab false"
        zpty -w z "compadd () {
            if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd \"\$@\"; return \$?; fi
            typeset -a __hits
            builtin compadd -A __hits \"\$@\"
            (( \$#__hits )) || return 1
            for h in \$__hits; do echo -E - \"<match>\$h\"; done
        }"
        zpty -w z "$2"$'\t'
        integer toggles=0
        while zpty -r z line; do
            [[ $line == *$'\0'* ]] && (( ++toggles == 2 )) && break
            [[ $line == '<match>'* ]] && print -r -- ${${line#<match>}%%$'\r'*}
        done
        zpty -d z
        """#

    /// fish: `complete --do-complete` with the directory first in its completion path; it prints each
    /// candidate, a tab and its description.
    static let fish = #"""
        set -p fish_complete_path $argv[1]
        complete --do-complete $argv[2] | string replace -r '\t.*' ''
        """#
}

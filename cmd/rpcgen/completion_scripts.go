package main

import (
	"fmt"
	"io"
	"strings"
)

// bashCompletion writes the bash script: commands, then each command's
// flags (after a -), a flag's value (directories or files where the flag
// takes one), and its arguments by position.
func bashCompletion(w io.Writer, specs []*completionSpec) {
	fmt.Fprint(w, `# bash completion for rpcgen. Load it with: source <(rpcgen completion bash)

# _rpcgen_files completes files named *.$1 (any file when $1 is empty) and directories.
_rpcgen_files() {
    compopt -o filenames 2>/dev/null
    if [[ -n $1 ]]; then
        COMPREPLY+=($(compgen -f -X "!*.$1" -- "$cur") $(compgen -d -- "$cur"))
    else
        COMPREPLY+=($(compgen -f -- "$cur"))
    fi
}

_rpcgen() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    if (( COMP_CWORD == 1 )); then
`)
	fmt.Fprintf(w, "        COMPREPLY=($(compgen -W %s -- \"$cur\"))\n", quote(strings.Join(commandNames(specs), " ")))
	fmt.Fprint(w, `        return
    fi
    local cmd=${COMP_WORDS[1]} flags valueflags
    case $cmd in
`)
	for _, s := range specs {
		var flags []string
		for _, f := range s.flags {
			flags = append(flags, "-"+f.name)
		}
		fmt.Fprintf(w, "    %s) flags=%s valueflags=%s ;;\n", s.name, quote(strings.Join(flags, " ")), quote(" "+strings.Join(s.valueFlags(), " ")+" "))
	}
	fmt.Fprint(w, `    *) return ;;
    esac
    # The value of a flag.
    local p=${prev#-}
    p=${p#-}
    if [[ $prev == -* && $prev != *=* && $valueflags == *" $p "* ]]; then
        case $cmd:$p in
`)
	for _, s := range specs {
		for _, f := range s.flags {
			switch f.value {
			case dirValue:
				fmt.Fprintf(w, "        %s:%s) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n", s.name, f.name)
			case fileValue:
				fmt.Fprintf(w, "        %s:%s) _rpcgen_files ;;\n", s.name, f.name)
			}
		}
	}
	fmt.Fprint(w, `        esac
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
        return
    fi
    # n: how many arguments come before the current word, flags and their values left out.
    local i n=0 w
    for (( i = 2; i < COMP_CWORD; i++ )); do
        w=${COMP_WORDS[i]}
        case $w in
        -*=*) ;;
        -*) w=${w#-}; w=${w#-}; [[ $valueflags == *" $w "* ]] && (( i++ )) ;;
        *) (( n++ )) ;;
        esac
    done
    case $cmd in
`)
	for _, s := range specs {
		if len(s.args) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %s)\n        case $n in\n", s.name)
		for i, a := range s.args {
			pos := fmt.Sprint(i)
			if s.repeat && i == len(s.args)-1 {
				pos = "*"
			}
			fmt.Fprintf(w, "        %s) %s ;;\n", pos, bashArg(a))
		}
		fmt.Fprint(w, "        esac ;;\n")
	}
	fmt.Fprint(w, `    esac
}

complete -F _rpcgen rpcgen
`)
}

// bashArg is the bash command that completes argument a.
func bashArg(a argSpec) string {
	if a.words != nil {
		return fmt.Sprintf("COMPREPLY=($(compgen -W %s -- \"$cur\"))", quote(strings.Join(a.words, " ")))
	}
	return "_rpcgen_files " + a.ext
}

// zshCompletion writes the zsh script, for compinit's fpath or to source.
func zshCompletion(w io.Writer, specs []*completionSpec) {
	fmt.Fprint(w, `#compdef rpcgen
# zsh completion for rpcgen. Load it with: source <(rpcgen completion zsh)
# (after compinit), or save it as _rpcgen in a directory of $fpath.

_rpcgen() {
  local -a commands
  commands=(
`)
	for _, s := range specs {
		fmt.Fprintf(w, "    %s\n", quote(zshEscape(s.name, ":")+":"+s.summary))
	}
	fmt.Fprint(w, `  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'rpcgen command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
`)
	for _, s := range specs {
		fmt.Fprintf(w, "  (%s)\n    _arguments -S", s.name)
		for _, f := range s.flags {
			spec := "-" + f.name + "[" + zshEscape(f.usage, "[]") + "]"
			switch f.value {
			case dirValue:
				spec += ":directory:_files -/"
			case fileValue:
				spec += ":file:_files"
			case textValue:
				spec += ":" + f.name + ": "
			}
			fmt.Fprintf(w, " \\\n      %s", quote(spec))
		}
		for i, a := range s.args {
			pos := fmt.Sprint(i + 1)
			if s.repeat && i == len(s.args)-1 {
				pos = "*"
			}
			action := "_files"
			switch {
			case a.words != nil:
				action = "(" + strings.Join(a.words, " ") + ")"
			case a.ext != "":
				action = `_files -g "*.` + a.ext + `"`
			}
			fmt.Fprintf(w, " \\\n      %s", quote(pos+":"+zshEscape(a.label, ":")+":"+action))
		}
		fmt.Fprint(w, "\n    ;;\n")
	}
	fmt.Fprint(w, `  esac
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _rpcgen "$@"
else
  compdef _rpcgen rpcgen
fi
`)
}

// zshEscape puts a backslash before every backslash and every character
// of special in s.
func zshEscape(s, special string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '\\' || strings.ContainsRune(special, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// fishCompletion writes the fish script.
func fishCompletion(w io.Writer, specs []*completionSpec) {
	fmt.Fprint(w, `# fish completion for rpcgen. Load it with: rpcgen completion fish | source
# or save it as ~/.config/fish/completions/rpcgen.fish.

# __rpcgen_command CMD: the command line so far has the command CMD.
function __rpcgen_command
    set -l words (commandline -opc)
    test (count $words) -ge 2; and test "$words[2]" = "$argv[1]"
end

# __rpcgen_arg CMD N [VALUE-FLAG...]: the word being completed is argument N
# (from 0; N+ for N or later) of command CMD, whose listed flags take a value.
function __rpcgen_arg
    __rpcgen_command $argv[1]; or return 1
    set -l words (commandline -opc)
    set -l pos 0
    set -l skip 0
    for w in $words[3..-1]
        if test $skip -eq 1
            set skip 0
        else if string match -q -- '-*=*' $w
        else if string match -q -- '-*' $w
            if contains -- (string replace -r -- '^--?' '' $w) $argv[3..-1]
                set skip 1
            end
        else
            set pos (math $pos + 1)
        end
    end
    set -l n (string trim -r -c + -- $argv[2])
    if string match -q -- '*+' $argv[2]
        test $pos -ge $n
    else
        test $pos -eq $n
    end
end

# __rpcgen_files [EXT]: the files named *.EXT (any file without EXT; none
# with /) and the directories that start with the word being completed.
function __rpcgen_files
    set -l word (commandline -ct)
    for f in $word*
        if test -d $f
            string replace -r -- '/*$' / $f
        else if test -z "$argv[1]"; or string match -q -- "*.$argv[1]" $f
            echo $f
        end
    end
end

# __rpcgen_no_command: the command line so far has no command yet.
function __rpcgen_no_command
    test (count (commandline -opc)) -eq 1
end

complete -c rpcgen -f
`)
	for _, s := range specs {
		fmt.Fprintf(w, "complete -c rpcgen -n __rpcgen_no_command -a %s -d %s\n", s.name, fishQuote(s.summary))
	}
	for _, s := range specs {
		cond := fishQuote("__rpcgen_command " + s.name)
		for _, f := range s.flags {
			line := fmt.Sprintf("complete -c rpcgen -n %s -o %s", cond, f.name)
			switch f.value {
			case dirValue:
				line += " -x -a '(__rpcgen_files /)'"
			case fileValue:
				line += " -r -F"
			case textValue:
				line += " -x"
			}
			fmt.Fprintf(w, "%s -d %s\n", line, fishQuote(f.usage))
		}
		value := strings.Join(s.valueFlags(), " ")
		for i, a := range s.args {
			pos := fmt.Sprint(i)
			if s.repeat && i == len(s.args)-1 {
				pos += "+"
			}
			cond := fishQuote(strings.TrimSpace("__rpcgen_arg " + s.name + " " + pos + " " + value))
			switch {
			case a.words != nil:
				fmt.Fprintf(w, "complete -c rpcgen -n %s -a %s\n", cond, fishQuote(strings.Join(a.words, " ")))
			case a.ext != "":
				fmt.Fprintf(w, "complete -c rpcgen -n %s -a '(__rpcgen_files %s)'\n", cond, a.ext)
			default:
				fmt.Fprintf(w, "complete -c rpcgen -n %s -a '(__rpcgen_files)'\n", cond)
			}
		}
	}
}

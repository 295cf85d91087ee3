#!/bin/sh -f
":" /*
# This file is both a POSIX sh script and the JavaScript entry point. Run as a command (npm's
# bin link, a frontend spawning `mc-agent stdio`), /bin/sh reads this part, which JavaScript sees
# as a string and a comment: it moves the provider credentials out of the environment and hands
# them to node over fd 3 (a here-document), then execs node on this same file. The backend's
# start-up environment, which any same-user process can read in /proc/<pid>/environ, so never
# holds a key (docs/tools.md, "What a command can reach"). `-f`: `/*` above is not a glob.
# Moved: the standard variables (the list in src/protocol/secret-handoff.ts, which a test keeps
# equal to this one) and each `"api_key_env": "NAME"` written on one line of MC_HOME/config.json.
mc_nl='
'
mc_s=
mc_esc() { # in mc_v, every $1 becomes $2
  mc_e=
  while :; do
    case $mc_v in *"$1"*) ;; *) break ;; esac
    mc_e=$mc_e${mc_v%%"$1"*}$2
    mc_v=${mc_v#*"$1"}
  done
  mc_v=$mc_e$mc_v
}
mc_move() { # $1: a valid variable name; set (even empty) -> one `NAME=value` line of mc_s
  eval "mc_set=\${$1+x}"
  [ -n "$mc_set" ] || return 0
  eval "mc_v=\$$1"
  unset "$1"
  mc_esc '\' '\\'
  mc_esc "$mc_nl" '\n'
  mc_s=$mc_s$1=$mc_v$mc_nl
}
for mc_n in OPENAI_API_KEY OPENAI_ADMIN_KEY AZURE_OPENAI_API_KEY CODEX_API_KEY \
  ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN GEMINI_API_KEY GOOGLE_API_KEY \
  MISTRAL_API_KEY GROQ_API_KEY DEEPSEEK_API_KEY XAI_API_KEY OPENROUTER_API_KEY TOGETHER_API_KEY \
  FIREWORKS_API_KEY PERPLEXITY_API_KEY CEREBRAS_API_KEY COHERE_API_KEY HF_TOKEN \
  HUGGING_FACE_HUB_TOKEN; do
  mc_move "$mc_n"
done
# The configured names: a textual scan (sh cannot parse JSON), of at most 400 lines.
mc_conf=${MC_HOME:-${HOME:-}/.mc}/config.json
if [ -f "$mc_conf" ] && [ -r "$mc_conf" ]; then
  mc_i=0
  while [ "$mc_i" -lt 400 ] && { IFS= read -r mc_line || [ -n "$mc_line" ]; }; do
    mc_i=$((mc_i + 1))
    while :; do
      case $mc_line in *'"api_key_env"'*) ;; *) break ;; esac
      mc_line=${mc_line#*'"api_key_env"'}
      mc_r=${mc_line#"${mc_line%%[!	 :]*}"}
      case $mc_r in '"'*) ;; *) continue ;; esac
      mc_r=${mc_r#'"'}
      mc_n=${mc_r%%'"'*}
      # Not the launcher's own variables, nor what it needs to find node.
      case $mc_n in '' | [0-9]* | *[!A-Za-z0-9_]* | mc_* | PATH | IFS) ;; *) mc_move "$mc_n" ;; esac
    done
  done <"$mc_conf"
fi
unset MC_AGENT_SECRETS_FD
[ -n "$mc_s" ] || exec node "$0" "$@"
MC_AGENT_SECRETS_FD=3
export MC_AGENT_SECRETS_FD
exec node "$0" "$@" 3<<MC_AGENT_SECRETS
$mc_s
MC_AGENT_SECRETS
*/

// The process entry, src/entry.ts (dist/child/entry.cjs), takes the credentials the launcher
// above handed over (none when started as `node <this file>`) and picks what this process is:
// the backend child, the ACP agent or the terminal frontend. This file is CommonJS, by the
// package.json beside it (the package's own says "module"): so `mc-agent stdio` and
// `mc-agent acp` answer before Node has set up its ES module loader, which costs about a fifth
// of a bare start (docs/benchmarks.md, "Targets of issue 44").
require("../dist/child/entry.cjs").runEntry(process.argv.slice(2));

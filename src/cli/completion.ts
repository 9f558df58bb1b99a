/**
 * Shell completion for the kubectl plugin. kubectl (1.26 and later) completes `kubectl promotion
 * ...` by running `kubectl_complete-promotion` with the words after `promotion`, the last being
 * the one typed so far, and reads its answer in Cobra's format: one candidate a line, then
 * `:<directive>`. `completions` computes that answer from the command table alone (no cluster
 * is read: completion must answer at once); `kubectl-promotion completion bash|zsh` prints a
 * script that completes the `kubectl-promotion` command itself the same way.
 */
import { OPERATOR_COMMANDS } from './operator-commands.js';

/** Cobra's directives: let the shell complete file names, or offer nothing else. */
export const DIRECTIVE_DEFAULT = 0;
export const DIRECTIVE_NO_FILES = 4;

/** The plugin's own commands beside the operator's. */
const PLUGIN_COMMANDS = ['completion', 'version', 'help'];

/** Flags whose value is a file or directory: the shell completes those. */
const FILE_FLAGS = new Set([
  '--kubeconfig',
  '--key',
  '--policy',
  '--config',
  '--from',
  '--out',
  '-o',
]);

/** The shells `completion` writes a script for. */
export const SHELLS = ['bash', 'zsh'] as const;

/** The candidates for the last of `words` (the words after the plugin's name), and the directive. */
export function completions(words: readonly string[]): { candidates: string[]; directive: number } {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const starting = (list: readonly string[]) => list.filter((c) => c.startsWith(current));
  const [name] = before;
  if (name === undefined) {
    return {
      candidates: starting([...OPERATOR_COMMANDS.keys(), ...PLUGIN_COMMANDS]),
      directive: DIRECTIVE_NO_FILES,
    };
  }
  if (name === 'completion') {
    return {
      candidates: before.length === 1 ? starting(SHELLS) : [],
      directive: DIRECTIVE_NO_FILES,
    };
  }
  const command = OPERATOR_COMMANDS.get(name);
  if (command === undefined) return { candidates: [], directive: DIRECTIVE_NO_FILES };
  if (FILE_FLAGS.has(before.at(-1) ?? '')) return { candidates: [], directive: DIRECTIVE_DEFAULT };
  if (before.length === 1 && command.subcommands.length > 0 && !current.startsWith('-')) {
    return { candidates: starting(command.subcommands), directive: DIRECTIVE_NO_FILES };
  }
  if (current.startsWith('-')) {
    return { candidates: starting(flagsOf(command.usage)), directive: DIRECTIVE_NO_FILES };
  }
  return { candidates: [], directive: DIRECTIVE_NO_FILES };
}

/** The answer in Cobra's format: the candidates, one a line, then `:<directive>`. */
export function completionOutput(words: readonly string[]): string {
  const { candidates, directive } = completions(words);
  return [...candidates, `:${String(directive)}`].join('\n') + '\n';
}

/** Every `--flag` a usage text names, once each, with `--help`. */
function flagsOf(usage: string): string[] {
  const found = usage.match(/--[a-z][a-z-]*/g) ?? [];
  return [...new Set([...found, '--help'])].sort();
}

/** The completion script of `shell` for the `kubectl-promotion` command. */
export function completionScript(shell: (typeof SHELLS)[number]): string {
  return shell === 'bash' ? BASH : ZSH;
}

const BASH = `# bash completion for kubectl-promotion (kubectl promotion ... completes through kubectl's
# own completion, which runs kubectl_complete-promotion). Load with:
#   source <(kubectl-promotion completion bash)
_kubectl_promotion() {
  local cur=\${COMP_WORDS[COMP_CWORD]} directive
  local -a lines
  mapfile -t lines < <(kubectl-promotion __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  (( \${#lines[@]} )) || return 0
  directive=\${lines[-1]#:}
  unset 'lines[-1]'
  COMPREPLY=($(compgen -W "\${lines[*]}" -- "$cur"))
  if [[ \${#COMPREPLY[@]} -eq 0 && $directive == 0 ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _kubectl_promotion kubectl-promotion
`;

const ZSH = `#compdef kubectl-promotion
# zsh completion for kubectl-promotion (kubectl promotion ... completes through kubectl's own
# completion, which runs kubectl_complete-promotion). Load with:
#   source <(kubectl-promotion completion zsh)
_kubectl_promotion() {
  local -a lines
  lines=("\${(@f)$(kubectl-promotion __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  local directive=\${lines[-1]#:}
  lines=("\${(@)lines[1,-2]}")
  if (( \${#lines} )); then
    compadd -a lines
  elif [[ $directive == 0 ]]; then
    _files
  fi
}
compdef _kubectl_promotion kubectl-promotion
`;

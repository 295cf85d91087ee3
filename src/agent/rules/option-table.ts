/**
 * The options a prefix rule may cover, per common command (docs/tools.md, "Options a rule
 * covers"). Listed are options that neither execute anything nor write anywhere the command
 * would not already: `git diff --output=FILE` (writes any file), `--ext-diff`, `git -c`/`-C`,
 * `npm --script-shell`, `rg --pre`, `sort -o`/`--compress-program`, `tree -o`, `make -f`/`--eval`,
 * `go -toolexec`/`-o`, `pytest -p`/`-c`/`-o`/`--basetemp` ... are not, so they always ask. A
 * command not in this table has no option a rule covers; an option not listed for its command
 * asks.
 */

import { lazy } from "../../protocol/lazy.js";

export interface CommandSpec {
  /** Covered options: long (`--stat`, matched before any `=value`) and short (`-s`). */
  options: ReadonlySet<string>;
  /** Short options whose value may follow in the same word (`-n5`, `-mfix`). */
  valueLetters?: string;
  /** Single-dash long options (`go test -run X`): `-run` or `-run=X` is looked up whole. */
  singleDash?: boolean;
  /** `--` ends the options, the rest are operands (else `--` itself asks: it passes options on). */
  dashDash?: boolean;
  /** `-5` is an option (a count: `git log -5`, `head -5`). */
  numeric?: boolean;
  /** The first operand picks one of these (it must be among the rule's words). */
  subcommands?: Readonly<Record<string, CommandSpec>>;
  /** The first operand is a name the rule must hold (`npm run <script>`), then this spec. */
  selector?: CommandSpec;
  /** Whether operands past the rule's words are covered (false: make's targets and VAR=x). */
  operands?: boolean;
}

type SpecInput = Omit<CommandSpec, "options"> & { options?: string };

/** A spec from a space-separated option list. */
function spec(input: SpecInput = {}): CommandSpec {
  const { options = "", ...rest } = input;
  return { ...rest, options: new Set(options.split(" ").filter((o) => o !== "")) };
}

/**
 * The table: a program's last path segment to its spec. Built at its first use, a rule's check
 * of a command's options: a start that checks none (an editor's first session) builds none of
 * its hundred-odd specs (docs/acp.md, "Start-up").
 */
export const OPTION_TABLE = lazy((): Readonly<Record<string, CommandSpec>> => {
  const DIFF_VIEW =
    "--stat --numstat --shortstat --dirstat --name-only --name-status --summary --raw -p -u " +
    "--patch -s --no-patch -U --unified --minimal --patience --histogram --diff-algorithm -w " +
    "--ignore-all-space -b --ignore-space-change --ignore-blank-lines --ignore-space-at-eol " +
    "--color --no-color --color-words --word-diff --word-diff-regex -M --find-renames -C " +
    "--find-copies --no-renames --exit-code --quiet -R --relative --no-relative --abbrev " +
    "--full-index --binary --check -z --src-prefix --dst-prefix --no-prefix --ignore-submodules " +
    "--no-ext-diff --no-textconv";
  const LOG_VIEW =
    "--oneline -n --max-count --skip --since --after --until --before --author --committer " +
    "--grep -i --regexp-ignore-case --all --branches --tags --remotes --graph --decorate " +
    "--no-decorate --format --pretty --abbrev-commit --no-merges --merges --reverse --follow -S " +
    "-G --date --first-parent --left-right --topo-order --date-order --source --full-history";

  const GIT_SUBCOMMANDS: Record<string, CommandSpec> = {
    status: spec({
      options:
        "-s --short -b --branch --porcelain --long -v --verbose -u --untracked-files --ignored " +
        "-z --column --no-column --ahead-behind --no-ahead-behind --renames --no-renames --show-stash",
      valueLetters: "u",
      dashDash: true,
    }),
    diff: spec({
      options: `${DIFF_VIEW} --cached --staged --merge-base`,
      valueLetters: "UMC",
      dashDash: true,
    }),
    log: spec({
      options: `${DIFF_VIEW} ${LOG_VIEW}`,
      valueLetters: "nUMCSG",
      dashDash: true,
      numeric: true,
    }),
    show: spec({
      options: `${DIFF_VIEW} --oneline --format --pretty --no-notes --abbrev-commit --decorate`,
      valueLetters: "UMC",
      dashDash: true,
    }),
    branch: spec({
      options:
        "-a --all -r --remotes -v --verbose --list -l --show-current --contains --no-contains " +
        "--merged --no-merged --sort --format --color --no-color --column --no-column -q --quiet",
    }),
    add: spec({
      options: "-A --all -u --update -N --intent-to-add -v --verbose -n --dry-run --ignore-removal",
      dashDash: true,
    }),
    commit: spec({
      options:
        "-m --message -a --all --amend --no-edit -s --signoff -q --quiet -v --verbose " +
        "--allow-empty --allow-empty-message --author --date --no-verify -n --only -o --fixup " +
        "--squash --reset-author --no-gpg-sign",
      valueLetters: "m",
      dashDash: true,
    }),
    checkout: spec({
      options: "-b -B -q --quiet --detach -t --track --no-track --ours --theirs",
      dashDash: true,
    }),
    switch: spec({
      options: "-c --create -C --force-create --detach -q --quiet -t --track --no-track",
    }),
    restore: spec({
      options: "--staged -S --worktree -W -s --source -q --quiet --ours --theirs",
      valueLetters: "s",
      dashDash: true,
    }),
    stash: spec({
      options: "-u --include-untracked -m --message -q --quiet -k --keep-index",
      valueLetters: "m",
      subcommands: {
        list: spec({ options: "--oneline" }),
        show: spec({ options: DIFF_VIEW, valueLetters: "UMC" }),
        push: spec({
          options: "-u --include-untracked -m --message -q --quiet -k --keep-index",
          valueLetters: "m",
          dashDash: true,
        }),
        pop: spec({ options: "--index -q --quiet" }),
        apply: spec({ options: "--index -q --quiet" }),
        drop: spec({ options: "-q --quiet" }),
      },
    }),
    fetch: spec({
      options:
        "--all --prune -p --tags -t --no-tags -q --quiet -v --verbose --dry-run --depth --unshallow",
    }),
    pull: spec({
      options:
        "--rebase -r --no-rebase --ff-only --ff --no-ff -q --quiet -v --verbose --autostash " +
        "--no-autostash --tags --prune",
    }),
    push: spec({
      options:
        "-u --set-upstream --tags --follow-tags --force-with-lease -q --quiet -v --verbose " +
        "--dry-run -n --delete -d --no-verify",
    }),
    "rev-parse": spec({
      options:
        "--show-toplevel --abbrev-ref --short --verify --git-dir --absolute-git-dir " +
        "--is-inside-work-tree --show-prefix --show-cdup --symbolic-full-name -q --quiet",
    }),
    blame: spec({
      options:
        "-L -w -M -C -e --porcelain --line-porcelain -p -s -l -t --date --since -c --root --show-email",
      valueLetters: "LMC",
      dashDash: true,
    }),
    "ls-files": spec({
      options:
        "-m --modified -o --others -d --deleted -c --cached -i --ignored --exclude-standard -s " +
        "--stage -z -u --unmerged --full-name --error-unmatch -t",
      dashDash: true,
    }),
    remote: spec({ options: "-v --verbose", subcommands: { show: spec(), "get-url": spec() } }),
    tag: spec({
      options:
        "-l --list -n --sort --contains --no-contains --points-at --merged --no-merged --column --format",
      valueLetters: "n",
    }),
    grep: spec({
      options:
        "-n --line-number -i --ignore-case -w --word-regexp -l --files-with-matches -L -c --count " +
        "-e -E --extended-regexp -F --fixed-strings -P -v --invert-match -h -H --cached " +
        "--untracked -A -B -C --context -q --quiet --heading --break",
      valueLetters: "eABC",
      dashDash: true,
      numeric: true,
    }),
    reset: spec({ options: "--soft --mixed -q --quiet -N", dashDash: true }),
    rm: spec({ options: "--cached -r -q --quiet -n --dry-run", dashDash: true }),
    mv: spec({ options: "-v --verbose -n --dry-run -k" }),
    config: spec({
      options: "--get --get-all --get-regexp --list -l --show-origin --show-scope --name-only -z",
      operands: false,
    }),
  };

  const SCRIPT = spec({ options: "--silent -s --if-present --loglevel" });
  const NPM_SUBCOMMANDS: Record<string, CommandSpec> = {
    test: SCRIPT,
    t: SCRIPT,
    tst: SCRIPT,
    start: SCRIPT,
    stop: SCRIPT,
    restart: SCRIPT,
    run: spec({ options: "--silent -s --if-present --loglevel", selector: SCRIPT }),
    "run-script": spec({ options: "--silent -s --if-present --loglevel", selector: SCRIPT }),
    ci: spec({
      options: "--ignore-scripts --no-audit --no-fund --silent --prefer-offline --omit --include",
    }),
    install: spec({
      options:
        "-D --save-dev -E --save-exact --no-save -O --save-optional -P --save-prod " +
        "--ignore-scripts --no-audit --no-fund --silent --prefer-offline --legacy-peer-deps",
    }),
    ls: spec({ options: "--all -a --depth --json --long -l --prod --dev --omit" }),
    outdated: spec({ options: "--json --long -l --all" }),
    audit: spec({ options: "--json --omit --production" }),
    view: spec({ options: "--json" }),
  };
  NPM_SUBCOMMANDS.i = NPM_SUBCOMMANDS.install as CommandSpec;
  NPM_SUBCOMMANDS.list = NPM_SUBCOMMANDS.ls as CommandSpec;

  const YARN_SUBCOMMANDS: Record<string, CommandSpec> = {
    test: SCRIPT,
    run: spec({ options: "--silent -s", selector: SCRIPT }),
    install: spec({
      options: "--frozen-lockfile --immutable --silent --ignore-scripts --prefer-offline",
    }),
    add: spec({ options: "-D --dev -E --exact" }),
  };

  const CARGO_BUILD = spec({
    options:
      "--release -r --all-features --no-default-features -F --features -p --package --workspace " +
      "--all --all-targets --lib --bins --bin --tests --test --examples --example --benches " +
      "--bench -q --quiet -v --verbose --locked --offline --frozen -j --jobs --color " +
      "--message-format --profile --target --no-run --no-fail-fast --doc",
    valueLetters: "Fpj",
  });

  const GO_FLAGS = "-v -race -tags -mod -trimpath";
  const GO_TEST = spec({
    options:
      `${GO_FLAGS} -run -skip -count -short -cover -covermode -timeout -bench -benchmem ` +
      "-failfast -json -p -parallel -cpu -list -shuffle -vet",
    singleDash: true,
  });

  return {
    git: spec({
      options: "--no-pager -P --version --help --no-optional-locks --literal-pathspecs",
      subcommands: GIT_SUBCOMMANDS,
    }),
    npm: spec({ options: "--silent -s --loglevel --version", subcommands: NPM_SUBCOMMANDS }),
    yarn: spec({ options: "--silent -s --version", subcommands: YARN_SUBCOMMANDS }),
    pnpm: spec({ options: "--silent -s --version", subcommands: NPM_SUBCOMMANDS }),
    cargo: spec({
      options: "--version -V -q --quiet -v --verbose --locked --offline --frozen --color",
      subcommands: {
        test: CARGO_BUILD,
        build: CARGO_BUILD,
        check: CARGO_BUILD,
        clippy: CARGO_BUILD,
        run: CARGO_BUILD,
        bench: CARGO_BUILD,
        doc: CARGO_BUILD,
        fmt: spec({ options: "--all --check -p --package -q --quiet -v --verbose" }),
      },
    }),
    go: spec({
      options: "-version",
      singleDash: true,
      subcommands: {
        test: GO_TEST,
        build: spec({ options: GO_FLAGS, singleDash: true }),
        vet: spec({ options: "-v -tags", singleDash: true }),
        run: spec({ options: GO_FLAGS, singleDash: true }),
        list: spec({
          options: "-m -json -f -u -versions -deps -test -e -mod -tags",
          singleDash: true,
        }),
        env: spec({ options: "-json", singleDash: true }),
        version: spec(),
        mod: spec({
          subcommands: {
            tidy: spec({ options: "-v -e", singleDash: true }),
            download: spec({ options: "-x -json", singleDash: true }),
            verify: spec(),
            why: spec({ options: "-m -vendor", singleDash: true }),
            graph: spec(),
          },
        }),
      },
    }),
    pytest: spec({
      options:
        "-v --verbose -q --quiet -x --exitfirst -s --capture -k -m -l --showlocals --lf " +
        "--last-failed --ff --failed-first --nf --new-first --sw --stepwise --tb --maxfail --co " +
        "--collect-only -r --durations -n --no-header --no-summary --color --disable-warnings " +
        "--strict-markers --runxfail --lfnf --last-failed-no-failures --deselect --ignore --ignore-glob",
      valueLetters: "kmrn",
      dashDash: true,
    }),
    make: spec({
      options:
        "-j --jobs -k --keep-going -s --silent --quiet -B --always-make -w --no-print-directory " +
        "-O --output-sync -r --no-builtin-rules -R --no-builtin-variables -l --load-average",
      valueLetters: "jlO",
      operands: false,
    }),
    tsc: spec({
      options: "--noEmit --pretty --listFiles --diagnostics --extendedDiagnostics --version",
    }),
    ls: spec({
      options:
        "-l -a -A -h -R -t -r -S -1 -d -F -i -s -G -n -o -g -C -x -X -v -p -I --color --all " +
        "--almost-all --human-readable --recursive --reverse --sort --time-style " +
        "--group-directories-first --classify --full-time --ignore --hide",
      valueLetters: "I",
      dashDash: true,
    }),
    cat: spec({ options: "-n -b -A -e -E -s -t -T -v --number --show-all", dashDash: true }),
    head: spec({
      options: "-n -c -q -v --lines --bytes --quiet",
      valueLetters: "nc",
      dashDash: true,
      numeric: true,
    }),
    tail: spec({
      options: "-n -c -q -v -f -F --lines --bytes --quiet --follow --retry",
      valueLetters: "nc",
      dashDash: true,
      numeric: true,
    }),
    wc: spec({
      options: "-l -c -w -m -L --lines --bytes --words --chars --max-line-length",
      dashDash: true,
    }),
    grep: spec({
      options:
        "-r -R -n -i -l -L -v -w -x -E -F -P -G -c -o -q -s -h -H -e -A -B -C -m -I -a -z -Z " +
        "--color --colour --include --exclude --exclude-dir --line-number --ignore-case " +
        "--recursive --files-with-matches --count --only-matching --fixed-strings " +
        "--extended-regexp --invert-match --word-regexp --max-count --context --after-context " +
        "--before-context --binary-files --null",
      valueLetters: "eABCm",
      dashDash: true,
      numeric: true,
    }),
    rg: spec({
      options:
        "-n -i -S -s -l -c -v -w -x -F -e -g -t -T -A -B -C -m -u -L -o -U -P --glob --type " +
        "--type-not --hidden --no-ignore --follow --color --json --files --vimgrep --no-heading " +
        "--heading --multiline --pcre2 --max-count --context --line-number --ignore-case " +
        "--smart-case --fixed-strings --word-regexp --count --files-with-matches --type-list --sort",
      valueLetters: "egtTABCm",
      dashDash: true,
    }),
    echo: spec({ options: "-n -e -E" }),
    pwd: spec({ options: "-L -P" }),
    tree: spec({
      options: "-a -L -d -f -I -P -h -s -D -C -n --gitignore --du --noreport --dirsfirst",
      valueLetters: "LIP",
    }),
    diff: spec({
      options:
        "-u -U -r -N -q -s -i -w -b -B -y -c -C -a -x --unified --recursive --new-file --brief " +
        "--color --side-by-side --ignore-all-space --ignore-case --normal --strip-trailing-cr " +
        "--text --exclude",
      valueLetters: "UCx",
      dashDash: true,
    }),
    sort: spec({
      options:
        "-r -n -u -k -t -f -h -V -b -d -g -M -s -z --reverse --numeric-sort --unique --key " +
        "--field-separator --ignore-case --human-numeric-sort --version-sort --stable",
      valueLetters: "kt",
      dashDash: true,
    }),
    touch: spec({
      options: "-c --no-create -a -m -d --date -t -r",
      valueLetters: "dtr",
      dashDash: true,
    }),
    mkdir: spec({
      options: "-p --parents -v --verbose -m --mode",
      valueLetters: "m",
      dashDash: true,
    }),
    rm: spec({
      options: "-r -R -f -v -d -i --recursive --force --verbose --dir",
      dashDash: true,
    }),
    cp: spec({
      options:
        "-r -R -a -f -v -n -p -i -u -L -P -H --recursive --archive --force --verbose " +
        "--no-clobber --preserve --update --parents",
      dashDash: true,
    }),
    mv: spec({
      options: "-f -v -n -i -u --force --verbose --no-clobber --update",
      dashDash: true,
    }),
    du: spec({
      options: "-s -h -a -c -d -k -m -x --max-depth --summarize --human-readable --apparent-size",
      valueLetters: "d",
      dashDash: true,
    }),
    df: spec({ options: "-h -H -T -i -k -l --human-readable --total" }),
    file: spec({ options: "-b -i -L --mime --mime-type --brief", dashDash: true }),
    stat: spec({
      options: "-c -L -f -t --format --printf --terse",
      valueLetters: "c",
      dashDash: true,
    }),
    which: spec({ options: "-a" }),
  };
});

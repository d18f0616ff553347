/*
 * main.c — the `cuzk` command line: `cuzk <command> [arguments] [options]`.
 *
 * Commands are table entries (cli_command, one per cmd_*.c). The parser is
 * shared: options may come before, between or after the positional
 * arguments; `--name value` and `--name=value` are both accepted; `--` ends
 * the options. A command only accepts the flags its entry lists, so an option
 * that makes no sense for it ("--deep" on prove) is a usage error, as are an
 * unknown option and a wrong number of arguments: each prints the command's
 * usage line and exits 2. `--help` (or `-h`) anywhere prints the command's
 * help and exits 0, whatever else is on the line.
 *
 * Progress notes are on when stderr is a terminal or `--progress` is given;
 * timings with `--verbose`. Every failure is one `cuzk: <message>` line.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cuzk/common.h"

static const cli_command *const commands[] = {
    &cli_cmd_prove,         &cli_cmd_verify,    &cli_cmd_setup,   &cli_cmd_prove_params,
    &cli_cmd_verify_params, &cli_cmd_coset_key, &cli_cmd_inspect,
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

#define MAX_THREADS 4096

/* `cuzk inspect --circuit NAME [--seed S]` has options of its own, parsed in cmd_inspect.c. */
int cli_inspect_circuit_main(int argc, char **argv);
bool cli_inspect_circuit_wanted(int argc, char **argv);

/* One line per flag for the help text. */
static const struct {
    unsigned flag;
    const char *text;
} flag_help[] = {
    {CLI_F_THREADS, "  --threads N          worker threads (default: every online CPU)"},
    {CLI_F_NO_VERIFY, "  --no-verify          skip verifying the proof before writing it"},
    {CLI_F_CHECK_WITNESS, "  --check-witness R1CS check the witness against the circuit's constraints first"},
    {CLI_F_DEEP, "  --deep               decode every point: on the curve and in the subgroup"},
    {CLI_F_DEVICE, "  --device D           cpu, gpu or auto (default: auto = the GPU when this build has\n"
                   "                       the CUDA backend and a device is present, else the CPU)"},
    {CLI_F_PROGRESS, "  --progress           progress notes on stderr (default when stderr is a terminal)"},
    {CLI_F_VERBOSE, "  --verbose, -v        print a timing summary on stderr"},
};

static void print_main_usage(FILE *f)
{
    fprintf(f, "Usage: cuzk <command> [arguments] [options]\n\n"
               "Groth16 over BLS12-381: prove and verify circom/snarkjs circuits, bellperson keys.\n\n"
               "Commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-14s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nRun `cuzk <command> --help` for its arguments and options.\n"
               "  cuzk --help, -h       this text\n"
               "  cuzk --version        print the version\n");
}

static void print_usage_line(FILE *f, const cli_command *c)
{
    fprintf(f, "Usage: cuzk %s %s%s\n", c->name, c->synopsis, c->flags ? " [options]" : "");
}

static void print_command_help(const cli_command *c)
{
    print_usage_line(stdout, c);
    printf("\n%s\n", c->help);
    printf("\nOptions:\n");
    for (size_t i = 0; i < sizeof flag_help / sizeof flag_help[0]; i++)
        if (c->flags & flag_help[i].flag)
            printf("%s\n", flag_help[i].text);
    printf("  --help, -h           this text\n");
}

static int usage_error(const cli_command *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints "cuzk: <command>: <message>" and the command's usage line; returns CLI_USAGE. */
static int usage_error(const cli_command *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuzk: %s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    print_usage_line(stderr, c);
    fprintf(stderr, "Run `cuzk %s --help` for details.\n", c->name);
    return CLI_USAGE;
}

static int parse_threads(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end || v < 1 || v > MAX_THREADS)
        return -1;
    *out = (int)v;
    return 0;
}

static int has_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return 0;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    }
    return 0;
}

/* The flag named by arg (without any "=value"), or 0; *takes_value says whether it needs a value. */
static unsigned flag_of(const char *arg, size_t len, int *takes_value)
{
    static const struct {
        const char *name;
        unsigned flag;
        int value;
    } names[] = {
        {"--threads", CLI_F_THREADS, 1},
        {"--no-verify", CLI_F_NO_VERIFY, 0},
        {"--check-witness", CLI_F_CHECK_WITNESS, 1},
        {"--verbose", CLI_F_VERBOSE, 0},
        {"-v", CLI_F_VERBOSE, 0},
        {"--progress", CLI_F_PROGRESS, 0},
        {"--deep", CLI_F_DEEP, 0},
        {"--device", CLI_F_DEVICE, 1},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == len && !strncmp(arg, names[i].name, len)) {
            *takes_value = names[i].value;
            return names[i].flag;
        }
    return 0;
}

static int set_flag(cli_args *a, unsigned flag, const char *value)
{
    switch (flag) {
    case CLI_F_THREADS:
        if (parse_threads(value, &a->threads) != 0)
            return usage_error(a->cmd, "--threads expects an integer from 1 to %d, not '%s'", MAX_THREADS,
                               value);
        break;
    case CLI_F_NO_VERIFY: a->no_verify = true; break;
    case CLI_F_CHECK_WITNESS: a->check_witness = value; break;
    case CLI_F_VERBOSE: a->verbose = true; break;
    case CLI_F_PROGRESS: a->progress = true; break;
    case CLI_F_DEEP: a->deep = true; break;
    case CLI_F_DEVICE:
        if (!strcmp(value, "cpu"))
            a->device = CLI_DEV_CPU;
        else if (!strcmp(value, "gpu"))
            a->device = CLI_DEV_GPU;
        else if (!strcmp(value, "auto"))
            a->device = CLI_DEV_AUTO;
        else
            return usage_error(a->cmd, "--device expects cpu, gpu or auto, not '%s'", value);
        break;
    }
    return CLI_OK;
}

/* Parses the option at argv[*i] (which starts with '-'); advances *i past a separate value. */
static int parse_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    const char *eq = strncmp(arg, "--", 2) == 0 ? strchr(arg, '=') : NULL;
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    int takes_value = 0;
    unsigned flag = flag_of(arg, len, &takes_value);
    if (!flag || !(a->cmd->flags & flag))
        return usage_error(a->cmd, "unknown option '%s'", arg);
    const char *value = NULL;
    if (takes_value) {
        if (eq)
            value = eq + 1;
        else if (*i + 1 < argc)
            value = argv[++*i];
        else
            return usage_error(a->cmd, "%s needs a value", arg);
        if (!value[0])
            return usage_error(a->cmd, "empty value for %s", arg);
    } else if (eq) {
        return usage_error(a->cmd, "%.*s takes no value", (int)len, arg);
    }
    return set_flag(a, flag, value);
}

static int parse_args(cli_args *a, int argc, char **argv)
{
    bool options = true;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (options && !strcmp(arg, "--")) {
            options = false;
        } else if (options && arg[0] == '-' && arg[1]) {
            int rc = parse_option(a, argc, argv, &i);
            if (rc != CLI_OK)
                return rc;
        } else {
            if (a->n_pos == a->cmd->max_pos)
                return usage_error(a->cmd, "too many arguments (at most %d), starting at '%s'",
                                   a->cmd->max_pos, arg);
            if (!arg[0])
                return usage_error(a->cmd, "argument %d is an empty string", a->n_pos + 1);
            a->pos[a->n_pos++] = arg;
        }
    }
    if (a->n_pos < a->cmd->min_pos)
        return usage_error(a->cmd, "expects %s%d arguments, got %d",
                           a->cmd->min_pos < a->cmd->max_pos ? "at least " : "", a->cmd->min_pos, a->n_pos);
    return CLI_OK;
}

static const cli_command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(commands[i]->name, name))
            return commands[i];
    return NULL;
}

/* An output that names an input (positional or --check-witness) or another output is refused before any
 * work: writing it would destroy what the command reads, or one output would replace the other. */
static int check_outputs(const cli_args *a)
{
    const char *name = a->cmd->name;
    for (int i = 0; i < a->n_pos; i++) {
        if (!(a->cmd->outputs >> i & 1))
            continue;
        for (int j = 0; j < a->n_pos; j++) {
            if (j == i || !cuzk_same_file(a->pos[i], a->pos[j]))
                continue;
            if (a->cmd->outputs >> j & 1) {
                if (j > i) {
                    cli_error("%s: two outputs name one file (%s and %s)", name, a->pos[i], a->pos[j]);
                    return CLI_USAGE;
                }
            } else {
                cli_error("%s: the output %s is the input %s: writing it would destroy it", name, a->pos[i],
                          a->pos[j]);
                return CLI_USAGE;
            }
        }
        if (a->check_witness && cuzk_same_file(a->pos[i], a->check_witness)) {
            cli_error("%s: the output %s is the --check-witness input %s: writing it would destroy it", name,
                      a->pos[i], a->check_witness);
            return CLI_USAGE;
        }
    }
    return CLI_OK;
}

static int run_command(const cli_command *c, int argc, char **argv)
{
    if (has_help(argc, argv)) {
        print_command_help(c);
        return CLI_OK;
    }
    if (c == &cli_cmd_inspect && cli_inspect_circuit_wanted(argc, argv))
        return cli_inspect_circuit_main(argc, argv);
    cli_args a;
    memset(&a, 0, sizeof a);
    a.cmd = c;
    int rc = parse_args(&a, argc, argv);
    if (rc != CLI_OK)
        return rc;
    if ((c->flags & CLI_F_PROGRESS) && isatty(STDERR_FILENO))
        a.progress = true;
    if ((rc = check_outputs(&a)) != CLI_OK)
        return rc;
    return c->run(&a);
}

/* The command line's work; *ran is the command that ran, if one did. */
static int dispatch(int argc, char **argv, const cli_command **ran)
{
    if (argc < 2) {
        print_main_usage(stderr);
        return CLI_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
        if (argc == 2) {
            print_main_usage(stdout);
            return CLI_OK;
        }
        const cli_command *c = find_command(argv[2]);
        if (!c) {
            cli_error("unknown command '%s'", argv[2]);
            return CLI_USAGE;
        }
        print_command_help(c);
        return CLI_OK;
    }
    if (!strcmp(name, "--version") || !strcmp(name, "version")) {
        printf("cuzk %s\n", CLI_VERSION);
        return CLI_OK;
    }
    const cli_command *c = find_command(name);
    if (!c) {
        cli_error("unknown command '%s'", name);
        print_main_usage(stderr);
        return CLI_USAGE;
    }
    *ran = c;
    return run_command(c, argc - 2, argv + 2);
}

int main(int argc, char **argv)
{
    /* A write past the file-size limit (RLIMIT_FSIZE) fails with EFBIG instead of killing the process:
     * like a full disk, it is then reported with the file's name, exits 1 and removes the temporary file. */
    signal(SIGXFSZ, SIG_IGN);
    const cli_command *ran = NULL;
    int rc = dispatch(argc, argv, &ran);
    int e = cuzk_stdout_finish();
    if (e) {
        cli_error("cannot write the standard output: %s", strerror(e));
        /* verify's status is its answer (valid, invalid, unreadable) and stays; any other success fails */
        if (rc == CLI_OK && !(ran && ran->status_is_answer))
            rc = CLI_FAIL;
    }
    return rc;
}

import { Command, CommanderError, Option } from 'commander';
import dotenv from 'dotenv';
import { ConfigError, loadConfig } from '../config.js';
import { errorMessage, isUserError } from '../errors.js';
import { createLogger, type Logger } from '../log.js';
import { registerCommands } from './commands/index.js';
import type { CliContext } from './context.js';

/**
 * The `ragask` command line. commander: the de-facto standard CLI parser for Node (subcommands,
 * help, typed options). Everything here is transport: it parses flags and calls the core.
 */
function buildProgram(ctx: CliContext): Command {
  const program = new Command('ragask')
    .description('Answers questions from your own documents by multi-hop retrieval with BERT running locally.')
    .version('0.1.0')
    .addOption(new Option('--data-dir <dir>', 'folder of the store and index (RAGASK_DATA_DIR)'))
    .showHelpAfterError('(run `ragask --help` for usage)')
    .exitOverride();
  registerCommands(program, ctx);
  return program;
}

/** sysexits.h: configuration error. */
const EX_CONFIG = 78;

export async function main(argv: string[]): Promise<number> {
  dotenv.config({ quiet: true });
  let logger: Logger | null = null;
  const ctx: CliContext = {
    config(overrides = {}, features = []) {
      return loadConfig(process.env, overrides, { features });
    },
    logger(config) {
      // The CLI talks to people on stdout; its JSON logs stay at warn unless RAGASK_LOG_LEVEL asks for more.
      logger ??= createLogger({ level: process.env.RAGASK_LOG_LEVEL ? (config?.logLevel ?? 'warn') : 'warn' });
      return logger;
    },
    out(text) {
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
  };
  const program = buildProgram(ctx);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    if (e instanceof ConfigError) {
      for (const line of e.lines) process.stderr.write(`ragask: ${line}\n`);
      return 1;
    }
    if (isUserError(e)) {
      process.stderr.write(`ragask: ${e.message}\n`);
      // 78: a setting the service cannot run with (EX_CONFIG), so a supervisor does not loop on it
      return e.code === 'config' ? EX_CONFIG : 1;
    }
    process.stderr.write(`ragask: internal error: ${errorMessage(e)}\n`);
    if (process.env.RAGASK_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    else process.stderr.write('ragask: set RAGASK_DEBUG=1 for the stack trace, and please report it\n');
    return 70;
  }
}

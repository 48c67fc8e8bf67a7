import type { Command } from 'commander';
import type { CliContext } from '../program.js';
import * as ask from './ask.js';
import * as evaluate from './eval.js';
import * as ingest from './ingest.js';
import * as stats from './stats.js';

export function registerCommands(program: Command, ctx: CliContext): void {
  for (const c of [ingest, ask, stats, evaluate]) c.register(program, ctx);
}

import type { Command } from 'commander';
import * as ask from './ask.js';
import * as bench from './bench.js';
import * as calibrate from './calibrate.js';
import * as demo from './demo.js';
import * as doctor from './doctor.js';
import * as evaluate from './eval.js';
import * as feedback from './feedback.js';
import * as gaps from './gaps.js';
import * as ingest from './ingest.js';
import * as migrate from './migrate.js';
import * as rows from './rows.js';
import * as reindex from './reindex.js';
import * as serve from './serve.js';
import * as sources from './sources.js';
import * as stats from './stats.js';
import * as sync from './sync.js';
import type { CliContext } from '../context.js';

export function registerCommands(program: Command, ctx: CliContext): void {
  for (const c of [
    demo,
    ingest,
    sync,
    ask,
    stats,
    evaluate,
    calibrate,
    rows,
    reindex,
    migrate,
    bench,
    serve,
    feedback,
    gaps,
    sources,
    doctor,
  ])
    c.register(program, ctx);
}

// The eval-bfcl command as a function (scripts/eval-bfcl.ts is a thin wrapper), so tests can run
// every flag and error path in-process. Prints accuracy per category and `accuracy: X/Y` last.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { evaluateBfcl, formatReport, parsePredictions } from './bfclEval';
import { BfclFormatError, bfclTasks, parseBfclAnswers, parseBfclQuestions } from './bfclLoader';
import type { GroundTruthCall } from './types';

export const EVAL_BFCL_USAGE =
  'usage: npm run eval-bfcl -- --questions FILE [--questions FILE …] --answers FILE [--answers FILE …] --predictions FILE [--verbose]';

class UsageError extends Error {}

/** Where the command writes: normal output and diagnostics. */
export interface CliOutput {
  /** One line of the report. */
  out(line: string): void;
  /** One line of warnings or errors. */
  err(line: string): void;
}

interface Args {
  questions: string[];
  answers: string[];
  predictions: string;
  verbose: boolean;
}

function parseArgs(argv: string[]): Args {
  const questions: string[] = [];
  const answers: string[] = [];
  let predictions: string | null = null;
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--verbose') {
      verbose = true;
      continue;
    }
    if (flag === '--help' || flag === '-h') throw new UsageError(EVAL_BFCL_USAGE);
    const eq = flag.indexOf('=');
    const name = eq === -1 ? flag : flag.slice(0, eq);
    if (!['--questions', '--answers', '--predictions'].includes(name)) throw new UsageError(`unknown argument "${flag}"\n${EVAL_BFCL_USAGE}`);
    const value = eq === -1 ? argv[++i] : flag.slice(eq + 1);
    if (value === undefined || value === '' || value.startsWith('--')) throw new UsageError(`${name} needs a file path\n${EVAL_BFCL_USAGE}`);
    if (name === '--questions') questions.push(value);
    else if (name === '--answers') answers.push(value);
    else if (predictions !== null) throw new UsageError(`--predictions is given twice ("${predictions}", "${value}"); score one predictions file per run\n${EVAL_BFCL_USAGE}`);
    else predictions = value;
  }
  for (const [flag, files] of [['--questions', questions], ['--answers', answers]] as const) {
    const seen = new Map<string, string>();
    for (const file of files) {
      const key = existsSync(file) ? realpathSync(file) : file;
      const earlier = seen.get(key);
      if (earlier !== undefined) throw new UsageError(`${flag} is given the same file twice ("${earlier}", "${file}"); its items would count twice\n${EVAL_BFCL_USAGE}`);
      seen.set(key, file);
    }
  }
  if (questions.length === 0) throw new UsageError(`missing --questions (a BFCL question file, e.g. BFCL_v3_simple.json)\n${EVAL_BFCL_USAGE}`);
  if (predictions === null) throw new UsageError(`missing --predictions (JSON lines of {"id": ..., "calls": [...]})\n${EVAL_BFCL_USAGE}`);
  return { questions, answers, predictions, verbose };
}

function readText(path: string, what: string): string {
  if (!existsSync(path)) throw new UsageError(`${what} file not found: ${path} (check the path; relative paths start from ${process.cwd()})`);
  if (!statSync(path).isFile()) throw new UsageError(`${what} path is not a file: ${path}`);
  return readFileSync(path, 'utf8');
}

/** Runs eval-bfcl with command-line arguments; returns the exit code (0 ok, 1 user error). */
export function runEvalBfcl(argv: string[], io: CliOutput): number {
  try {
    const args = parseArgs(argv);
    const questions = args.questions.flatMap((file) => {
      const items = parseBfclQuestions(readText(file, 'questions'), file);
      if (items.length === 0) throw new UsageError(`questions file ${file} holds no questions (it is empty or blank); pass a BFCL question file such as BFCL_v3_simple.json`);
      return items;
    });
    const answers = new Map<string, GroundTruthCall[]>();
    const answerFile = new Map<string, string>();
    for (const file of args.answers) {
      for (const [id, truth] of parseBfclAnswers(readText(file, 'answers'), file)) {
        const other = answerFile.get(id);
        if (other !== undefined) throw new BfclFormatError(`id "${id}" has a possible answer in both ${other} and ${file}; pass each answers file once`);
        answerFile.set(id, file);
        answers.set(id, truth);
      }
    }
    const tasks = bfclTasks(questions, answers, args.answers.length > 0 ? args.answers.join(', ') : 'any answers file (none was given)');
    const predictions = parsePredictions(readText(args.predictions, 'predictions'), args.predictions);
    const report = evaluateBfcl(tasks, predictions, args.predictions);
    if (report.missing.length > 0) {
      io.err(`warning: ${report.missing.length} item(s) have no prediction and count as wrong (first: ${report.missing.slice(0, 5).join(', ')})`);
    }
    if (args.verbose) for (const item of report.items) if (!item.correct) io.out(`wrong ${item.id}: ${item.errors.join(' | ')}`);
    for (const line of formatReport(report)) io.out(line);
    return 0;
  } catch (e) {
    if (e instanceof UsageError || e instanceof BfclFormatError) {
      io.err(`eval-bfcl: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

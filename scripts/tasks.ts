// `npm run tasks -- --family F [--level L] --split train|validation|test --n N --seed S --out FILE.jsonl`:
// writes tasks exactly as an agent sees them (opening messages, tools) with the expected answer,
// one JSON object per line (src/data/taskExport.ts), so anyone can audit a split from outside.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { exportTasks, tasksJsonl } from '../src/data/taskExport';
import { parseTasksArgs, TASKS_USAGE, TasksArgsError, type TasksArgs } from '../src/data/tasksArgs';

function main(args: TasksArgs): number {
  const out = resolve(args.out);
  if (!existsSync(dirname(out)) || !statSync(dirname(out)).isDirectory()) {
    console.error(`tasks: the folder of --out ${out} does not exist; create it or choose another path`);
    return 1;
  }
  const records = exportTasks(args.set, args.split, args.n, args.seed);
  const text = tasksJsonl(records);
  try {
    writeFileSync(out, text);
  } catch (e) {
    console.error(`tasks: could not write ${out} (${e instanceof Error ? e.message : String(e)}); check the path and its permissions`);
    return 1;
  }
  const categories = new Map<string, number>();
  for (const r of records) categories.set(r.category, (categories.get(r.category) ?? 0) + 1);
  console.log(`wrote ${records.length} ${args.set.family}/${args.set.level} ${args.split} tasks (seed ${args.seed}) to ${out}: ${[...categories].map(([c, k]) => `${c} ${k}`).join(', ')}`);
  return 0;
}

let args: TasksArgs;
try {
  args = parseTasksArgs(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof TasksArgsError)) throw e;
  console.error(`tasks: ${e.message}\n${TASKS_USAGE}`);
  process.exit(2);
}
if (args.help) {
  console.log(TASKS_USAGE);
  process.exit(0);
}
try {
  process.exit(main(args));
} catch (e) {
  console.error(`tasks: failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
}

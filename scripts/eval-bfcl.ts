// npm run eval-bfcl -- --questions FILE --answers FILE --predictions FILE [--verbose]
// Scores predictions ({"id", "calls": [{"name", "arguments"}]} per line) on BFCL items with the AST
// checker; prints accuracy per category and `accuracy: X/Y` last. See src/envs/functionCalling/evalBfclCli.ts.
import { runEvalBfcl } from '../src/envs/functionCalling/evalBfclCli';

process.exitCode = runEvalBfcl(process.argv.slice(2), { out: (line) => console.log(line), err: (line) => console.error(line) });

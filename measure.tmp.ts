import { ROUTING_FAMILIES } from './src/envs/functionCalling/family';
import { ByteTokenizer, encodePrompt, withCompactTools, formatToolCalls } from './src/tokenizer';
import { canonicalCall } from './src/envs/functionCalling/expertPolicy';
const tok = new ByteTokenizer();
for (const [level, fam] of Object.entries(ROUTING_FAMILIES)) for (const split of ['train','validation','test'] as const) {
let max = 0, maxCall = 0, sum=0; const n=3000;
for (let i = 0; i < n; i++) {
  const t = fam.generateTask(1, i, split);
  const o = fam.createEnv().reset(t);
  const s = withCompactTools(o.messages, o.tools);
  const seq = encodePrompt(tok, s.messages, s.tools, {});
  max = Math.max(max, seq.ids.length); sum+=seq.ids.length;
  const c = formatToolCalls(t.groundTruth.map((g) => canonicalCall(g, t.tools)));
  maxCall = Math.max(maxCall, tok.encode(c).length + 1);
  if (i === 0 && split==='test') console.log(tok.decode(seq.ids)+ c);
}
console.log(level, split, { max, mean: (sum/n).toFixed(0), maxCall });
}

// Node loader hook so headless scripts run under tsx can import WGSL the way Vite does:
// `import code from './x.wgsl?raw'` becomes `export default "<file text>"`.
// Usage: tsx --import ./scripts/lib/wgslLoader.mjs scripts/learn.ts
import { register } from 'node:module';

const hooks = `
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
const RAW = '?raw';
export async function resolve(specifier, context, next) {
  if (!specifier.endsWith(RAW)) return next(specifier, context);
  // Resolve the file itself, then keep the marker on the URL for load().
  const r = await next(specifier.slice(0, -RAW.length), context);
  return { url: r.url + RAW, format: 'module', shortCircuit: true };
}
export async function load(url, context, next) {
  if (!url.endsWith(RAW)) return next(url, context);
  const text = await readFile(fileURLToPath(url.slice(0, -RAW.length)), 'utf8');
  return { format: 'module', source: 'export default ' + JSON.stringify(text) + ';', shortCircuit: true };
}
`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);

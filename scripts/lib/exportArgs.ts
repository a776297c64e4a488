// Command line of `npm run export -- --model DIR | --checkpoint PATH --format hf|peft|onnx --out PATH`.
import type { ExportFormat } from '../../src/storage/export/exportModel';
import { oneOfFlag } from '../../src/util/flagValues';

const DTYPES = ['F32', 'F16', 'BF16'] as const;

export interface ExportArgs {
  model?: string;
  checkpoint?: string;
  format: ExportFormat;
  out: string;
  dtype: 'F32' | 'F16' | 'BF16';
  attentionMask: boolean;
  positionIds: boolean;
  kvCache: boolean;
  /** onnx: weights in an external-data file even when they would fit inline. */
  externalData: boolean;
  help: boolean;
}

export const EXPORT_USAGE = `usage: npm run export -- (--model DIR | --checkpoint PATH) --format hf|peft|onnx --out PATH [options]
  --model DIR        an HF folder (config.json + model.safetensors)
  --checkpoint PATH  a checkpoint folder (…/<id> with manifest.json), or a checkpoint store folder (its newest checkpoint)
  --format F         hf: config.json, model.safetensors, generation_config.json (+ tokenizer files for Qwen3)
                     peft: adapter_config.json + adapter_model.safetensors (LoRA checkpoints)
                     onnx: the decoder as ONNX (logits from input_ids)
  --out PATH         folder (hf, peft), PATH.zip for a zip, or the .onnx file
  --dtype D          F32 (default), BF16 or F16 weights (hf)
  --attention-mask   onnx: add the attention_mask input
  --position-ids     onnx: add the position_ids input
  --kv-cache         onnx: past_key_values inputs and present outputs
  --external-data    onnx: weights in PATH.data beside the .onnx file (automatic past protobuf's 2 GiB limit)`;

export function parseExportArgs(argv: string[]): ExportArgs {
  const a: Partial<ExportArgs> = { dtype: 'F32', attentionMask: false, positionIds: false, kvCache: false, externalData: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const one = () => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--model': a.model = one(); break;
      case '--checkpoint': a.checkpoint = one(); break;
      case '--format': a.format = oneOfFlag<ExportFormat>('format', one(), ['hf', 'peft', 'onnx']); break;
      case '--out': a.out = one(); break;
      case '--dtype': a.dtype = oneOfFlag('dtype', one().toUpperCase(), DTYPES); break;
      case '--attention-mask': a.attentionMask = true; break;
      case '--position-ids': a.positionIds = true; break;
      case '--kv-cache': a.kvCache = true; break;
      case '--external-data': a.externalData = true; break;
      case '--help': case '-h': a.help = true; break;
      default: throw new Error(`unknown option '${flag}'`);
    }
  }
  if (a.help) return a as ExportArgs;
  if (!a.model === !a.checkpoint) throw new Error('give exactly one of --model DIR and --checkpoint PATH');
  if (!a.format) throw new Error('--format is required (hf, peft or onnx)');
  if (!a.out) throw new Error('--out is required');
  return a as ExportArgs;
}

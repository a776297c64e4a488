// Compute pipelines cached by (shader source, entry point, override constants). Compilation
// problems are checked once per module and reported with the op name, line and source lines.
import { GpuError, shaderCompileError, validationError } from './errors';

export interface PipelineKey {
  /** Op name for messages and labels, e.g. 'matmul_forward'. */
  op: string;
  code: string;
  entryPoint: string;
  /** WGSL `override` constants. */
  constants?: Record<string, number>;
}

export class PipelineCache {
  private modules = new Map<string, GPUShaderModule>();
  private pipelines = new Map<string, GPUComputePipeline>();
  /** Compile / creation checks not yet awaited; the runtime awaits them at its next sync. */
  private pending: Promise<GpuError | null>[] = [];

  constructor(private readonly device: GPUDevice) {}

  get size(): number {
    return this.pipelines.size;
  }

  get(key: PipelineKey): GPUComputePipeline {
    const constKey = key.constants ? JSON.stringify(Object.entries(key.constants).sort()) : '';
    const id = `${key.entryPoint}|${constKey}|${key.code}`;
    const hit = this.pipelines.get(id);
    if (hit) return hit;

    let module = this.modules.get(key.code);
    if (!module) {
      module = this.device.createShaderModule({ code: key.code, label: key.op });
      this.modules.set(key.code, module);
      const m = module;
      this.pending.push(
        m.getCompilationInfo().then((info) => {
          const errors = info.messages.filter((x) => x.type === 'error');
          return errors.length ? shaderCompileError(key.op, key.code, errors) : null;
        }),
      );
    }
    this.device.pushErrorScope('validation');
    const pipeline = this.device.createComputePipeline({
      label: key.op,
      layout: 'auto',
      compute: { module, entryPoint: key.entryPoint, constants: key.constants },
    });
    this.pending.push(
      this.device.popErrorScope().then((e) => {
        if (!e) return null;
        this.pipelines.delete(id); // an invalid pipeline must not be served again
        this.modules.delete(key.code);
        return validationError(key.op, `pipeline '${key.entryPoint}': ${e.message}`);
      }),
    );
    this.pipelines.set(id, pipeline);
    return pipeline;
  }

  /** Resolves the outstanding checks; throws the first error (a compile error wins: it explains the rest). */
  async check(): Promise<void> {
    if (this.pending.length === 0) return;
    const results = await Promise.all(this.pending.splice(0));
    const errors = results.filter((e): e is GpuError => e !== null);
    if (errors.length === 0) return;
    throw errors.find((e) => e.code === 'shader-compile') ?? errors[0];
  }
}

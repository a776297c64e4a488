// Errors the GPU layer raises. Each says what happened and what to do; `code` lets callers
// (the page, the headless runner) branch without parsing messages.

export type GpuErrorCode =
  | 'no-webgpu'
  | 'no-adapter'
  | 'limit-too-small'
  | 'shader-compile'
  | 'validation'
  | 'out-of-memory'
  | 'device-lost';

export class GpuError extends Error {
  constructor(
    readonly code: GpuErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'GpuError';
  }
}

export function noWebGpuError(where: string): GpuError {
  return new GpuError(
    'no-webgpu',
    `WebGPU is not available in this ${where} (navigator.gpu is missing). ` +
      'Use a recent Chrome/Edge (or Firefox Nightly) over https or localhost; headless Chromium needs --enable-unsafe-webgpu.',
  );
}

export function noAdapterError(featureLevel: string): GpuError {
  return new GpuError(
    'no-adapter',
    `No WebGPU adapter was found (asked for featureLevel '${featureLevel}'). ` +
      'The GPU may be blocklisted or drivers missing: check chrome://gpu, update drivers, or try the other feature level.',
  );
}

export function limitTooSmallError(limit: string, need: number, has: number, hint?: string): GpuError {
  return new GpuError(
    'limit-too-small',
    `WebGPU adapter limit ${limit} is ${has}, but TabForge needs ${need}` + (hint ? `: ${hint}` : '.'),
  );
}

/** Formats a WGSL compile error: op name, line:col, message, and the offending source lines with context. */
export function shaderCompileError(op: string, source: string, messages: readonly GPUCompilationMessage[]): GpuError {
  const lines = source.split('\n');
  const parts: string[] = [];
  for (const m of messages) {
    if (m.type !== 'error') continue;
    parts.push(`  line ${m.lineNum}:${m.linePos}: ${m.message}`);
    const from = Math.max(1, m.lineNum - 2);
    const to = Math.min(lines.length, m.lineNum + 2);
    for (let n = from; n <= to; n++) {
      parts.push(`  ${n === m.lineNum ? '>' : ' '} ${String(n).padStart(4)} | ${lines[n - 1]}`);
    }
  }
  return new GpuError('shader-compile', `WGSL compile error in op '${op}':\n${parts.join('\n')}`);
}

export function validationError(op: string, message: string): GpuError {
  return new GpuError('validation', `WebGPU validation error in op '${op}': ${message}`);
}

export function deviceLostError(reason: string, message: string): GpuError {
  return new GpuError(
    'device-lost',
    `The WebGPU device was lost (${reason}): ${message || 'no details'}. ` +
      'Work since the last checkpoint is gone from the GPU; reload the page (or restart the run) to resume from the checkpoint.',
  );
}

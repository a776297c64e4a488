// Acquires an adapter and device: core first, then compatibility (or one forced by the caller);
// asks for the limits the kernels need up to what the adapter allows; turns on the optional
// features (shader-f16, subgroups, timestamp-query) only when present, and reports them.
import { GpuError, deviceLostError, limitTooSmallError, noAdapterError, noWebGpuError } from './errors';

export type FeatureLevelChoice = 'auto' | 'core' | 'compatibility';

/** Limits TabForge's kernels depend on; `need` is the floor, we request up to the adapter's max. */
export const KERNEL_LIMIT_NEEDS = {
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupSizeX: 256,
  maxComputeWorkgroupStorageSize: 16384,
  maxStorageBuffersPerShaderStage: 8,
  maxStorageBufferBindingSize: 64 * 1024 * 1024,
  maxBufferSize: 64 * 1024 * 1024,
} as const;

/** Limits we raise to the adapter's maximum (bigger models need them); others stay default. */
const RAISE_TO_MAX = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupsPerDimension',
] as const;

export interface DeviceOptions {
  /** The GPU entry point; defaults to navigator.gpu (Node passes the `webgpu` package's). */
  gpu?: GPU;
  /** 'auto' tries core then compatibility. */
  featureLevel?: FeatureLevelChoice;
  /** Extra floors beyond KERNEL_LIMIT_NEEDS (e.g. a preset's largest buffer). */
  needLimits?: Partial<Record<keyof GPUSupportedLimits, number>>;
  /** Turn off optional features even when present (for testing fallbacks). */
  disableFeatures?: GPUFeatureName[];
  powerPreference?: GPUPowerPreference;
}

export interface DeviceFeatures {
  shaderF16: boolean;
  subgroups: boolean;
  timestampQuery: boolean;
}

export interface GpuContext {
  device: GPUDevice;
  adapter: GPUAdapter;
  /** 'core' or 'compatibility': what the device was actually created as. */
  featureLevel: 'core' | 'compatibility';
  /** Vendor/architecture/description strings, for reports. */
  adapterInfo: { vendor: string; architecture: string; device: string; description: string };
  features: DeviceFeatures;
  /** Limits of the created device (what kernels may rely on). */
  limits: GPUSupportedLimits;
  /** Settles when the device is lost; its value is the error to surface. Never rejects. */
  lost: Promise<GpuError>;
  /** Set once the device has been lost. */
  lostError: GpuError | null;
}

async function requestAdapterAt(gpu: GPU, level: 'core' | 'compatibility', power?: GPUPowerPreference): Promise<GPUAdapter | null> {
  try {
    // `featureLevel` is in the spec but not yet in every @webgpu/types version's dictionary.
    const opts = { featureLevel: level, powerPreference: power } as GPURequestAdapterOptions;
    return await gpu.requestAdapter(opts);
  } catch {
    return null;
  }
}

function adapterIsCompat(adapter: GPUAdapter, asked: 'core' | 'compatibility'): boolean {
  // Chrome exposes core-features-and-limits on core adapters; absent means compatibility.
  if (asked === 'core') return false;
  return !adapter.features.has('core-features-and-limits' as GPUFeatureName);
}

export async function acquireDevice(opts: DeviceOptions = {}): Promise<GpuContext> {
  const gpu = opts.gpu ?? (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) throw noWebGpuError(typeof window === 'undefined' ? 'worker or runtime' : 'browser');
  const choice = opts.featureLevel ?? 'auto';
  const order: ('core' | 'compatibility')[] = choice === 'auto' ? ['core', 'compatibility'] : [choice];
  let adapter: GPUAdapter | null = null;
  let asked: 'core' | 'compatibility' = order[0];
  for (const level of order) {
    adapter = await requestAdapterAt(gpu, level, opts.powerPreference);
    asked = level;
    if (adapter) break;
  }
  if (!adapter) throw noAdapterError(choice);

  // Check floors and build the request.
  const needs: Record<string, number> = { ...KERNEL_LIMIT_NEEDS, ...(opts.needLimits ?? {}) };
  const lim = adapter.limits as unknown as Record<string, number>;
  for (const [name, need] of Object.entries(needs)) {
    const has = lim[name];
    if (typeof has === 'number' && has < need) {
      throw limitTooSmallError(name, need, has, 'choose a smaller preset, or use a desktop GPU / another browser');
    }
  }
  const requiredLimits: Record<string, number> = {};
  for (const name of RAISE_TO_MAX) if (typeof lim[name] === 'number') requiredLimits[name] = lim[name];

  const disabled = new Set(opts.disableFeatures ?? []);
  const want: GPUFeatureName[] = [];
  for (const f of ['shader-f16', 'subgroups', 'timestamp-query'] as GPUFeatureName[]) {
    if (adapter.features.has(f) && !disabled.has(f)) want.push(f);
  }
  const compat = adapterIsCompat(adapter, asked);
  if (!compat && adapter.features.has('core-features-and-limits' as GPUFeatureName)) {
    want.push('core-features-and-limits' as GPUFeatureName);
  }

  const device = await adapter.requestDevice({ requiredFeatures: want, requiredLimits, label: 'tabforge' });
  const info = adapter.info ?? ({} as GPUAdapterInfo);
  const ctx: GpuContext = {
    device,
    adapter,
    featureLevel: compat ? 'compatibility' : 'core',
    adapterInfo: {
      vendor: info.vendor ?? '',
      architecture: info.architecture ?? '',
      device: info.device ?? '',
      description: info.description ?? '',
    },
    features: {
      shaderF16: device.features.has('shader-f16'),
      subgroups: device.features.has('subgroups' as GPUFeatureName),
      timestampQuery: device.features.has('timestamp-query'),
    },
    limits: device.limits,
    lost: Promise.resolve(null as unknown as GpuError),
    lostError: null,
  };
  ctx.lost = device.lost.then((l) => {
    ctx.lostError = deviceLostError(l.reason, l.message);
    return ctx.lostError;
  });
  return ctx;
}

/** One line for logs and reports: "SwiftShader (google, swiftshader) core f16 subgroups timestamps". */
export function describeContext(ctx: GpuContext): string {
  const i = ctx.adapterInfo;
  const name = [i.description, i.device].find((s) => s) || i.architecture || 'unknown adapter';
  const feats = Object.entries(ctx.features).filter(([, on]) => on).map(([k]) => k).join(' ');
  return `${name} (${i.vendor || '?'}/${i.architecture || '?'}) ${ctx.featureLevel}${feats ? ` [${feats}]` : ''}`;
}

export { GpuError };

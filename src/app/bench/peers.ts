// Peer libraries for the side-by-side benchmarks, started on the same adapter as ours (same feature
// level) with their own GPUDevice each:
//   tfjs-webgpu: @tensorflow/tfjs + @tensorflow/tfjs-backend-webgpu. Its stock 'webgpu' backend
//     factory asks navigator.gpu for a default (core) adapter, so we re-register 'webgpu' with the
//     same WebGPUBackend class on a device of our adapter (kernels are registered per backend
//     name, so the name must stay 'webgpu'), then tf.setBackend('webgpu').
//   ort-webgpu: onnxruntime-web's WebGPU execution provider on a device we hand it (the EP option
//     `device`, plus env.webgpu.adapter); its wasm runtime is served by Vite (?url), one thread.
// A library that cannot start here is reported per row as null with the reason.
import * as tf from '@tensorflow/tfjs';
import { WebGPUBackend } from '@tensorflow/tfjs-backend-webgpu';
import * as ort from 'onnxruntime-web/webgpu';
import ortWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm?url';
import type { PeerContext } from './registry';

export type Tfjs = typeof tf;
export interface OrtPeer {
  ort: typeof ort;
  /** The device ORT runs on (pass it as the EP option `device`; create input buffers on it). */
  device: GPUDevice;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

async function adapterAt(featureLevel: 'core' | 'compatibility'): Promise<GPUAdapter> {
  const adapter = await navigator.gpu.requestAdapter({ featureLevel } as GPURequestAdapterOptions);
  if (!adapter) throw new Error(`no WebGPU adapter at feature level '${featureLevel}'`);
  return adapter;
}

/** A device with the adapter's maximum compute/storage limits and the optional features present. */
async function peerDevice(featureLevel: 'core' | 'compatibility', label: string): Promise<{ adapter: GPUAdapter; device: GPUDevice }> {
  const adapter = await adapterAt(featureLevel);
  const names = [
    'maxComputeWorkgroupStorageSize', 'maxComputeWorkgroupsPerDimension', 'maxStorageBufferBindingSize', 'maxBufferSize',
    'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ', 'maxComputeInvocationsPerWorkgroup',
    'maxStorageBuffersPerShaderStage',
  ] as const;
  const requiredLimits: Record<string, number> = {};
  for (const n of names) requiredLimits[n] = adapter.limits[n];
  const requiredFeatures = (['timestamp-query', 'shader-f16', 'subgroups'] as GPUFeatureName[]).filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({ requiredLimits, requiredFeatures, label });
  return { adapter, device };
}

async function startTfjs(featureLevel: 'core' | 'compatibility'): Promise<Tfjs> {
  const { adapter, device } = await peerDevice(featureLevel, 'tfjs-webgpu');
  tf.removeBackend('webgpu');
  tf.registerBackend('webgpu', () => new WebGPUBackend(device, adapter.info), 3);
  if (!(await tf.setBackend('webgpu'))) throw new Error('tf.setBackend(webgpu) returned false');
  await tf.ready();
  return tf;
}

async function startOrt(featureLevel: 'core' | 'compatibility'): Promise<OrtPeer> {
  const { adapter, device } = await peerDevice(featureLevel, 'ort-webgpu');
  ort.env.wasm.wasmPaths = { wasm: ortWasmUrl };
  ort.env.wasm.numThreads = 1; // the GPU emulation needs the cores; ORT's own CPU work is tiny here
  ort.env.webgpu.adapter = adapter;
  ort.env.logLevel = 'error';
  return { ort, device };
}

/** Starts both peers; a failure becomes `unavailable[peer] = reason` instead of an exception. */
export async function startPeers(featureLevel: 'core' | 'compatibility', log: (line: string) => void): Promise<PeerContext> {
  const ctx: PeerContext = { unavailable: {}, libs: {} };
  try {
    ctx.libs['tfjs-webgpu'] = await startTfjs(featureLevel);
  } catch (e) {
    ctx.unavailable['tfjs-webgpu'] = `tfjs-webgpu did not start on this adapter: ${message(e)}`;
  }
  try {
    ctx.libs['ort-webgpu'] = await startOrt(featureLevel);
  } catch (e) {
    ctx.unavailable['ort-webgpu'] = `onnxruntime-web (webgpu) did not start on this adapter: ${message(e)}`;
  }
  for (const [p, why] of Object.entries(ctx.unavailable)) log(`${p} unavailable: ${why}`);
  return ctx;
}

export function tfjsOf(ctx: PeerContext): Tfjs {
  const lib = ctx.libs['tfjs-webgpu'];
  if (!lib) throw new Error(ctx.unavailable['tfjs-webgpu'] ?? 'tfjs-webgpu not started');
  return lib as Tfjs;
}

export function ortOf(ctx: PeerContext): OrtPeer {
  const lib = ctx.libs['ort-webgpu'];
  if (!lib) throw new Error(ctx.unavailable['ort-webgpu'] ?? 'onnxruntime-web not started');
  return lib as OrtPeer;
}

// Shared helper for Node unit tests: one runtime per adapter per test file.
//   'swiftshader' — Dawn on Vulkan SwiftShader, core feature level (subgroups, timestamps);
//   'opengles'    — Dawn on OpenGL ES (Mesa llvmpipe), compatibility feature level (128 MiB bindings).
import { acquireDevice } from './device';
import { type NodeBackend, nodeGpu } from './nodeGpu';
import { GpuRuntime } from './runtime';

export const TEST_ADAPTERS: NodeBackend[] = ['swiftshader', 'opengles'];

const shared = new Map<NodeBackend, Promise<GpuRuntime>>();

export function testRuntime(backend: NodeBackend = 'swiftshader'): Promise<GpuRuntime> {
  let rt = shared.get(backend);
  if (!rt) {
    const featureLevel = backend === 'swiftshader' ? 'core' : 'compatibility';
    rt = acquireDevice({ gpu: nodeGpu(backend), featureLevel }).then((ctx) => new GpuRuntime(ctx));
    shared.set(backend, rt);
  }
  return rt;
}

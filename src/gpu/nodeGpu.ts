// Node-only: a real WebGPU implementation (Dawn, from the `webgpu` package) for unit tests and
// headless scripts. Never imported by the page. SwiftShader (core) by default; the compatibility
// path uses Dawn's OpenGL ES backend on Mesa (llvmpipe) — see ARCHITECTURE.md.
import { create, globals } from 'webgpu';

let installed = false;
const gpus = new Map<string, GPU>();

export type NodeBackend = 'swiftshader' | 'opengles';

/** Installs the WebGPU globals (GPUBufferUsage, …) and returns a GPU object for the backend. */
export function nodeGpu(backend: NodeBackend = 'swiftshader'): GPU {
  if (!installed) {
    Object.assign(globalThis, globals);
    installed = true;
  }
  let gpu = gpus.get(backend);
  if (!gpu) {
    if (backend === 'swiftshader') {
      process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
      // SwiftShader compiles the zero-initialisation of workgroup memory one element at a time
      // (seconds per kernel with large tiles). Our kernels write workgroup memory before reading
      // it, so tests turn that initialisation off.
      gpu = create(['enable-dawn-features=disable_workgroup_init']);
    } else {
      process.env.EGL_PLATFORM ??= 'surfaceless';
      gpu = create(['backend=opengles']);
    }
    gpus.set(backend, gpu);
  }
  return gpu;
}

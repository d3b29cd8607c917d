// Section ①'s roofline tool: whether a model's weights fit in one accelerator's memory (the
// datasheet's figure, beside the bandwidth the roofline uses), and if not, what it would take.
import { fixed } from "./format.js";

// {weights, memory, fits, minDevices}: bytes of the weights, bytes of device memory, whether the
// weights alone fit in one device, and how many such devices hold them at the least, counting
// memory alone (the kv cache and activations need room on top, so this is a lower bound).
export function weightsFit(device, params, bytesPerParam) {
  const weights = params * bytesPerParam;
  return { weights, memory: device.memory, fits: weights <= device.memory, minDevices: Math.ceil(weights / device.memory) };
}

const gb = (bytes) => `${fixed(bytes / 1e9, bytes < 10e9 ? 1 : 0)} GB`;

// The tool's warning when the weights do not fit ({zh, en}), or null when they do.
export function fitNote(device, params, bytesPerParam) {
  const f = weightsFit(device, params, bytesPerParam);
  if (f.fits) return null;
  const bits = 8 * bytesPerParam;
  return {
    zh: `这个模型放不进一块 ${device.name}：${bits} 位权重共 ${gb(f.weights)}，而它的显存只有 ${gb(f.memory)}（规格书），KV cache 和中间激活还要另占地方。只按显存算，至少要 ${f.minDevices} 块这样的 GPU；权重拆到几块卡上以后，每一步还要在卡与卡之间传递激活，这笔通信时间这里的算术没有算。上面的时间是假设一块卡放得下全部权重时的数字。`,
    en: `This model does not fit on one ${device.name}: ${gb(f.weights)} of ${bits}-bit weights against ${gb(f.memory)} of memory (datasheet), and the kv cache and activations need room on top of that. By memory alone it takes at least ${f.minDevices} such GPUs; split across them, every step also passes activations from GPU to GPU, time this arithmetic does not count. The times above are what one GPU would take if it could hold all the weights.`,
  };
}

// The accelerator side of section ①'s argument, as arithmetic from vendors' datasheets: the
// devices, the model sizes and a batch-1 roofline. Pure data and functions, shared by ①'s widget
// (verify_cost.js) and the lab's modelled clock (lab_clock.js).

// Memory (bytes), peak memory bandwidth (bytes/s) and dense 16-bit tensor throughput (FLOP/s), as published.
export const DEVICES = [
  { id: "rtx4090", name: "RTX 4090", memory: 24e9, bandwidth: 1008e9, flops: 165.2e12,
    source: { zh: "NVIDIA Ada GPU 架构白皮书：24 GB GDDR6X 显存，带宽 1008 GB/s；FP16 Tensor（FP32 累加，不计稀疏）165.2 TFLOPS",
      en: "NVIDIA Ada GPU architecture whitepaper: 24 GB of GDDR6X memory, 1008 GB/s bandwidth; 165.2 TFLOPS FP16 tensor (FP32 accumulate, dense)" },
    url: "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf" },
  { id: "a100", name: "A100 SXM 80GB", memory: 80e9, bandwidth: 2039e9, flops: 312e12,
    source: { zh: "NVIDIA A100 数据手册：80 GB HBM2e 显存，带宽 2039 GB/s；BF16/FP16 Tensor 312 TFLOPS（不计稀疏）",
      en: "NVIDIA A100 datasheet: 80 GB of HBM2e memory, 2039 GB/s bandwidth; 312 TFLOPS BF16/FP16 tensor (dense)" },
    url: "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf" },
  { id: "h100", name: "H100 SXM", memory: 80e9, bandwidth: 3.35e12, flops: 989.4e12,
    source: { zh: "NVIDIA H100 数据手册：80 GB 显存，带宽 3.35 TB/s；BF16/FP16 Tensor 1979 TFLOPS 是计入稀疏的数字，不计稀疏为一半，989.4",
      en: "NVIDIA H100 datasheet: 80 GB of memory, 3.35 TB/s bandwidth; its 1979 TFLOPS BF16/FP16 tensor figure counts sparsity, dense is half, 989.4" },
    url: "https://www.nvidia.com/en-us/data-center/h100/" },
];
// The GPU-sized main models ① prices and ⑧'s GPU clock runs: published shapes (the layers, width and
// vocabulary give the MTP head's size in lab_clock.js), declared once for both.
export const MAIN_PRESETS = [
  { id: "1b", params: 1.24e9, layers: 16, width: 2048, vocab: 128256, name: "Llama 3.2 1B" },
  { id: "7b", params: 6.74e9, layers: 32, width: 4096, vocab: 32000, name: "Llama 2 7B" },
  { id: "70b", params: 68.98e9, layers: 80, width: 8192, vocab: 32000, name: "Llama 2 70B" },
];
export const MODEL_SIZES = MAIN_PRESETS.map((m) => m.params); // plus this chapter's main model, read from models.json
export const BYTES_PER_PARAM = 2; // 16-bit weights

// One decode step at batch 1 over k new positions, ideal overlap of memory and arithmetic: every
// weight is read once (k does not change that), and every position costs 2 FLOPs per weight.
// The kv cache's traffic and every kernel's launch are left out, and peak figures are never
// reached in practice: this is the shape of the argument, not a prediction.
export function roofline(device, params, k) {
  const memory = (params * BYTES_PER_PARAM) / device.bandwidth;
  const compute = (2 * params * k) / device.flops;
  return { memory, compute, step: Math.max(memory, compute), overOne: Math.max(memory, compute) / Math.max(memory, (2 * params) / device.flops) };
}

// The k at which arithmetic takes as long as reading the weights: FLOP/s per byte/s, times bytes per FLOP.
export function ridge(device) {
  return (device.flops * BYTES_PER_PARAM) / (2 * device.bandwidth);
}

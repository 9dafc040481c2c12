// What tests/bench/train_tfjs.mjs needs from TensorFlow.js, bundled by esbuild into
// build/bench/tfjs.cjs: tfjs-core ships its gradients as separate ES modules (the umbrella
// package @tensorflow/tfjs imports them), which Node cannot load from a CommonJS package, so
// the bench bundles core, gradients and both backends once. Bench-only: never part of the page.
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-core/dist/register_all_gradients';
import '@tensorflow/tfjs-backend-cpu';
import {setThreadsCount, setWasmPaths} from '@tensorflow/tfjs-backend-wasm';

export {setThreadsCount, setWasmPaths, tf};

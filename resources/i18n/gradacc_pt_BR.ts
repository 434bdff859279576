<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="pt_BR">
    <context>
        <name>CalculatorViewModel</name>
        <message>
            <source>&amp;Micro-batch size</source>
            <translation>Tamanho do &amp;micro-lote</translation>
        </message>
        <message>
            <source>&amp;Accumulation steps</source>
            <translation>&amp;Passos de acumulação</translation>
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
            <source>Gradient Accumulation Memory Calculator</source>
            <translation>Calculadora de Memória de Acumulação de Gradiente</translation>
        </message>
        <message>
            <source>Enter a value to see the results.</source>
            <translation>Insira um valor para ver os resultados.</translation>
        </message>
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
        <message>
            <source>Activation memory depends only on the micro-batch: accumulation steps and GPUs do not change it.</source>
            <translation>A memória de ativação depende apenas do micro-lote: passos de acumulação e GPUs não a alteram.</translation>
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
            <source>Peak activation memory is governed by the largest forward and backward pass alive at one moment, and that is a single micro-batch. Accumulation processes one micro-batch at a time and keeps only a running sum of gradients, whose size matches the model's parameters and does not grow with the number of steps. So raising the accumulation count raises the effective batch while leaving activation memory untouched. That is the whole point: a large effective batch on a memory budget that could never hold it all at once.</source>
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
            <source>The effective batch size is the value that learning-rate schedules and other hyperparameters are tuned against, not the micro-batch. Note that activation memory is only one part of the training budget: optimizer state, gradients and the parameters themselves usually dominate, and this calculator deliberately isolates the activation term to make the batching trade-off visible. For the full memory picture, see the LLM Training VRAM Calculator, and to reduce the number of trainable parameters with low-rank adapters, the LoRA Parameter Calculator.</source>
            <translation>O tamanho de lote efetivo é o valor em relação ao qual os cronogramas de taxa de aprendizado e outros hiperparâmetros são ajustados, não o micro-lote. Note que a memória de ativação é apenas uma parte do orçamento de treinamento: o estado do otimizador, os gradientes e os próprios parâmetros geralmente dominam, e esta calculadora isola deliberadamente o termo de ativação para tornar visível o compromisso dos lotes. Para o quadro completo de memória, veja a Calculadora de VRAM para Treinamento de LLM, e para reduzir o número de parâmetros treináveis com adaptadores de baixo posto, a Calculadora de Parâmetros LoRA.</translation>
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
            <source>Peak activation memory is set by the largest forward and backward pass held in memory at once, which is a single micro-batch. Accumulation processes one micro-batch at a time and keeps only a running sum of gradients, whose size equals the model's parameters and does not grow with the number of steps.</source>
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
            <source>LLM Training VRAM Calculator</source>
            <translation>Calculadora de VRAM para Treinamento de LLM</translation>
        </message>
        <message>
            <source>Estimate the GPU VRAM needed for full fine-tuning of a large language model from the parameter count, the choice of optimizer and activation memory, using the mixed-precision Adam rule of 16 bytes per parameter.</source>
            <translation>Estime a VRAM de GPU necessária para fazer fine-tuning completo de um modelo de linguagem grande a partir do número de parâmetros, da escolha do otimizador e da memória de ativações, usando a regra do Adam em precisão mista de 16 bytes por parâmetro.</translation>
        </message>
        <message>
            <source>LoRA Parameter Calculator</source>
            <translation>Calculadora de Parâmetros LoRA</translation>
        </message>
        <message>
            <source>Count the trainable parameters that low-rank adapters add to a model, to shrink the gradients and optimizer state you have to hold.</source>
            <translation>Conte os parâmetros treináveis que adaptadores de baixo posto acrescentam a um modelo, para reduzir os gradientes e o estado do otimizador que você precisa manter.</translation>
        </message>
        <message>
            <source>Next suggestions</source>
            <translation>Próximas sugestões</translation>
        </message>
    </context>
    <context>
        <name>Header</name>
        <message>
            <source>Gradient Accumulation Memory Calculator</source>
            <translation>Calculadora de Memória de Acumulação de Gradiente</translation>
        </message>
        <message>
            <source>Calculate the effective batch size reached through gradient accumulation and the activation memory it requires, from the micro-batch size, the accumulation steps, the data-parallel replicas and the activation cost per sample.</source>
            <translation>Calcule o tamanho de lote efetivo alcançado pela acumulação de gradiente e a memória de ativação que ele exige, a partir do tamanho do micro-lote, dos passos de acumulação, das réplicas de paralelismo de dados e do custo de ativação por amostra.</translation>
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
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>Gradient Accumulation Memory Calculator</source>
            <translation>Calculadora de Memória de Acumulação de Gradiente</translation>
        </message>
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
            <translation>A&amp;juda</translation>
        </message>
        <message>
            <source>&amp;Copy results</source>
            <translation>&amp;Copiar resultados</translation>
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
        <message>
            <source>Copy inputs and results to the clipboard ({shortcut})</source>
            <translation>Copiar entradas e resultados para a área de transferência ({shortcut})</translation>
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
        <name>ResultsPanel</name>
        <message>
            <source>Results</source>
            <translation>Resultados</translation>
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
    </context>
</TS>

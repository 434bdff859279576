<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>ActivationTexts</name>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConfigCheckTexts</name>
    <message numerus="yes">
        <source>%n GPU(s) in all</source>
        <translation>
            <numerusform>%n GPU in all</numerusform>
            <numerusform>%n GPUs in all</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n data-parallel replica(s)</source>
        <translation>
            <numerusform>%n data-parallel replica</numerusform>
            <numerusform>%n data-parallel replicas</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n node(s)</source>
        <translation>
            <numerusform>%n node</numerusform>
            <numerusform>%n nodes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ConfigurationTexts</name>
    <message numerus="yes">
        <source>%n sample(s) above the target of {target}.</source>
        <translation>
            <numerusform>%n sample above the target of {target}.</numerusform>
            <numerusform>%n samples above the target of {target}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n sample(s) below the target of {target}.</source>
        <translation>
            <numerusform>%n sample below the target of {target}.</numerusform>
            <numerusform>%n samples below the target of {target}.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>…and %n more</source>
        <translation>
            <numerusform>…and %n more</numerusform>
            <numerusform>…and %n more</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>CostTexts</name>
    <message numerus="yes">
        <source>%n optimizer step(s)</source>
        <translation>
            <numerusform>%n optimizer step</numerusform>
            <numerusform>%n optimizer steps</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n epoch(s) of {samples} samples</source>
        <translation>
            <numerusform>%n epoch of {samples} samples</numerusform>
            <numerusform>%n epochs of {samples} samples</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DetailsContent</name>
    <message numerus="yes">
        <source>on %n GPU(s)</source>
        <translation>
            <numerusform>on a single GPU</numerusform>
            <numerusform>on %n GPUs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Spreading the same configuration across %n data-parallel GPUs raises the effective batch to {E}, and the activation memory per GPU is still {M}.</source>
        <translation>
            <numerusform>Spreading the same configuration across %n data-parallel GPU raises the effective batch to {E}, and the activation memory per GPU is still {M}.</numerusform>
            <numerusform>Spreading the same configuration across %n data-parallel GPUs raises the effective batch to {E}, and the activation memory per GPU is still {M}.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>EstimateTexts</name>
    <message numerus="yes">
        <source>Per layer × %n layer(s)</source>
        <translation>
            <numerusform>Per layer × %n layer</numerusform>
            <numerusform>Per layer × %n layers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>{per_layer} × %n layer(s)</source>
        <translation>
            <numerusform>{per_layer} × %n layer</numerusform>
            <numerusform>{per_layer} × %n layers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ExtrasTexts</name>
    <message numerus="yes">
        <source>%n tokens per optimizer step ({batch} × {length}).</source>
        <translation>
            <numerusform>%n token per optimizer step ({batch} × {length}).</numerusform>
            <numerusform>%n tokens per optimizer step ({batch} × {length}).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n optimizer step(s) per epoch</source>
        <translation>
            <numerusform>%n optimizer step per epoch</numerusform>
            <numerusform>%n optimizer steps per epoch</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FitTexts</name>
    <message numerus="yes">
        <source>With more GPUs: ZeRO-3 over %n data-parallel GPU(s)</source>
        <translation>
            <numerusform>With more GPUs: ZeRO-3 over %n data-parallel GPU</numerusform>
            <numerusform>With more GPUs: ZeRO-3 over %n data-parallel GPUs</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>up to %n sample(s) per GPU</source>
        <translation>
            <numerusform>up to %n sample per GPU</numerusform>
            <numerusform>up to %n samples per GPU</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelStatesViewModel</name>
    <message numerus="yes">
        <source>%n byte(s)</source>
        <translation>
            <numerusform>%n byte</numerusform>
            <numerusform>%n bytes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n parameter(s): {gb} of model states on each GPU</source>
        <translation>
            <numerusform>%n parameter: {gb} of model states on each GPU</numerusform>
            <numerusform>%n parameters: {gb} of model states on each GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Sharded over %n data-parallel GPU(s).</source>
        <translation>
            <numerusform>Sharded over %n data-parallel GPU.</numerusform>
            <numerusform>Sharded over %n data-parallel GPUs.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Each GPU holds 1/%n of the model (tensor parallel × pipeline stages).</source>
        <translation>
            <numerusform>Each GPU holds 1/%n of the model (tensor parallel × pipeline stages).</numerusform>
            <numerusform>Each GPU holds 1/%n of the model (tensor parallel × pipeline stages).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>NoteTexts</name>
    <message numerus="yes">
        <source>%n parameter(s), exactly</source>
        <translation>
            <numerusform>%n parameter, exactly</numerusform>
            <numerusform>%n parameters, exactly</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n layer(s)</source>
        <translation>
            <numerusform>%n layer</numerusform>
            <numerusform>%n layers</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>ZeRO-{stage} over %n GPU(s)</source>
        <translation>
            <numerusform>ZeRO-{stage} over %n GPU</numerusform>
            <numerusform>ZeRO-{stage} over %n GPUs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PlanFormats</name>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n GPU</numerusform>
            <numerusform>%n GPUs</numerusform>
        </translation>
    </message>
</context>
</TS>

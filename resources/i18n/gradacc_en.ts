<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
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
</TS>

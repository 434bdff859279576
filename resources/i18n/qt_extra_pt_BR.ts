<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- Qt's own strings that Qt's qtbase_pt_BR.qm lacks (Qt changed the source text) or
     leaves in English, checked against PySide6 6.11.3 and 6.12.0. The app installs this
     catalogue after qtbase, so it is searched first. Each source must match Qt's string
     exactly, "&" included; tests/ui/test_qt_language.py shows them in real widgets. -->
<TS version="2.1" language="pt_BR" sourcelanguage="en">
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <source>Drive</source>
        <translation>Unidade</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>&amp;Procurar em:</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>Arquivos do &amp;tipo:</translation>
    </message>
</context>
<context>
    <name>QMessageBox</name>
    <message>
        <source>&lt;p&gt;Qt is a C++ toolkit for cross-platform application development.&lt;/p&gt;&lt;p&gt;Qt provides single-source portability across all major desktop operating systems. It is also available for embedded Linux and other embedded and mobile operating systems.&lt;/p&gt;&lt;p&gt;Qt is available under multiple licensing options designed to accommodate the needs of our various users.&lt;/p&gt;&lt;p&gt;Qt licensed under our commercial license agreement is appropriate for development of proprietary/commercial software where you do not want to share any source code with third parties or otherwise cannot comply with the terms of GNU (L)GPL.&lt;/p&gt;&lt;p&gt;Qt licensed under GNU (L)GPL is appropriate for the development of Qt&amp;nbsp;applications provided you can comply with the terms and conditions of the respective licenses.&lt;/p&gt;&lt;p&gt;Please see &lt;a href="https://%2/"&gt;%2&lt;/a&gt; for an overview of Qt licensing.&lt;/p&gt;&lt;p&gt;Copyright (C) The Qt Company Ltd. and other contributors.&lt;/p&gt;&lt;p&gt;Qt and the Qt logo are trademarks of The Qt Company Ltd.&lt;/p&gt;&lt;p&gt;Qt is The Qt Company Ltd. product developed as an open source project. See &lt;a href="https://%3/"&gt;%3&lt;/a&gt; for more information.&lt;/p&gt;</source>
        <translation>&lt;p&gt;Qt é um conjunto de ferramentas C++ para o desenvolvimento de aplicativos multiplataforma.&lt;/p&gt;&lt;p&gt;O Qt oferece portabilidade de código-fonte único entre todos os principais sistemas operacionais de desktop. Também está disponível para Linux embarcado e outros sistemas operacionais embarcados e móveis.&lt;/p&gt;&lt;p&gt;O Qt está disponível sob várias opções de licenciamento, pensadas para atender às necessidades dos nossos diversos usuários.&lt;/p&gt;&lt;p&gt;O Qt licenciado sob o nosso contrato de licença comercial é apropriado para o desenvolvimento de software proprietário/comercial em que você não quer compartilhar nenhum código-fonte com terceiros ou não pode cumprir os termos da GNU (L)GPL.&lt;/p&gt;&lt;p&gt;O Qt licenciado sob a GNU (L)GPL é apropriado para o desenvolvimento de aplicativos&amp;nbsp;Qt, desde que você possa cumprir os termos e condições das respectivas licenças.&lt;/p&gt;&lt;p&gt;Consulte &lt;a href="https://%2/"&gt;%2&lt;/a&gt; para uma visão geral do licenciamento do Qt.&lt;/p&gt;&lt;p&gt;Copyright (C) The Qt Company Ltd. e outros colaboradores.&lt;/p&gt;&lt;p&gt;Qt e o logotipo do Qt são marcas comerciais da The Qt Company Ltd.&lt;/p&gt;&lt;p&gt;O Qt é um produto da The Qt Company Ltd. desenvolvido como um projeto de código aberto. Consulte &lt;a href="https://%3/"&gt;%3&lt;/a&gt; para mais informações.&lt;/p&gt;</translation>
    </message>
</context>
</TS>

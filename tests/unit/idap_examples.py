"""IDAP examples 17-1 to 17-21 of Oracle Streams AQ 10.1, chapter 17, as printed.

Reused by the schema, parser and gateway tests. Text as in Oracle Streams Advanced Queuing
User's Guide and Reference, Release 10.1, chapter 17 "Internet Access to Oracle Streams AQ".
"""


EXAMPLE_17_1 = """<?xml version="1.0"?>
   <Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlSend xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <producer_options>
            <destination>QS.NEW_ORDERS_QUE</destination>
          </producer_options>

          <message_set>
            <message_count>1</message_count>        

            <message>
              <message_number>1</message_number>

              <message_header>
                <correlation>ORDER1</correlation>
                    <sender_id>
                        <agent_name>scott</agent_name>
                      </sender_id> 
              </message_header>

              <message_payload>   

               <ORDER_TYP>
                     <ORDERNO>100</ORDERNO>
                     <STATUS>NEW</STATUS>
                     <ORDERTYPE>URGENT</ORDERTYPE>
                     <ORDERREGION>EAST</ORDERREGION>
                     <CUSTOMER>
                        <CUSTNO>1001233</CUSTNO>
                        <CUSTID>MA1234555623212</CUSTID>
                        <NAME>AMERICAN EXPRESS</NAME>
                        <STREET>EXPRESS STREET</STREET>
                        <CITY>REDWOOD CITY</CITY>
                        <STATE>CA</STATE>
                        <ZIP>94065</ZIP>
                        <COUNTRY>USA</COUNTRY>
                     </CUSTOMER>
                     <PAYMENTMETHOD>CREDIT</PAYMENTMETHOD>
                     <ITEMS>
                        <ITEMS_ITEM>
                           <QUANTITY>10</QUANTITY>
                           <ITEM>
                              <TITLE>Perl</TITLE>
                              <AUTHORS>Randal</AUTHORS>
                              <ISBN>ISBN20200</ISBN>
                              <PRICE>19</PRICE>
                           </ITEM>
                           <SUBTOTAL>190</SUBTOTAL>
                        </ITEMS_ITEM>
                        <ITEMS_ITEM>
                           <QUANTITY>20</QUANTITY>
                           <ITEM>
                              <TITLE>XML</TITLE>
                              <AUTHORS>Micheal</AUTHORS>
                              <ISBN>ISBN20212</ISBN>
                              <PRICE>59</PRICE>
                           </ITEM>
                           <SUBTOTAL>590</SUBTOTAL>
                        </ITEMS_ITEM>
                     </ITEMS>
                     <CCNUMBER>NUMBER01</CCNUMBER>
                     <ORDER_DATE>2000-08-23 0:0:0</ORDER_DATE>
               </ORDER_TYP>
             </message_payload>
            </message>
          </message_set>
        </AQXmlSend>
      </Body>
</Envelope>"""

EXAMPLE_17_2 = """<?xml version="1.0"?>
<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">

      <Body>
        <AQXmlPublish xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <producer_options>
            <destination>AQUSER.EMP_TOPIC</destination>
          </producer_options>

          <message_set>
            <message_count>1</message_count>        

            <message>
              <message_number>1</message_number>

              <message_header>
                 <correlation>NEWEMP</correlation>
                       <sender_id>
                          <agent_name>scott</agent_name>
                       </sender_id> 
              </message_header>

              <message_payload>   
                    <EMP_TYP>
                  <EMPNO>1111</EMPNO>
                  <ENAME>Mary</ENAME>
                      <MGR>5000</MGR>
                      <HIREDATE>1996-01-01 0:0:0</HIREDATE>
                <SAL>10000</SAL>
                <COMM>100.12</COMM>
                      <DEPTNO>60</DEPTNO>
                    </EMP_TYP>
             </message_payload>
            </message>
          </message_set>
        </AQXmlPublish>
      </Body>
</Envelope>"""

EXAMPLE_17_3 = """<?xml version="1.0"?>
<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>

        <AQXmlSend xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <producer_options>
            <destination>AQUSER.JMS_TEXTQ</destination>
          </producer_options>

          <message_set>
            <message_count>1</message_count>        

            <message>
              <message_number>1</message_number>

              <message_header>
                <correlation>text_msg</correlation>
                        <sender_id>
                                <agent_name>john</agent_name>
                        </sender_id>
              </message_header>

              <message_payload>   

                    <jms_text_message>        
                        <oracle_jms_properties>
                     <appid>AQProduct</appid>
                       <groupid>AQ</groupid>
                      </oracle_jms_properties>

                      <user_properties>
                        <property>
                          <name>Country</name>
                          <string_value>USA</string_value>
                        </property>
                        <property>
                           <name>State</name>
                          <string_value>California</string_value>
                        </property>
                       </user_properties>

                       <text_data>All things bright and beautiful</text_data>
               </jms_text_message>
             </message_payload>
            </message>
          </message_set>
                </AQXmlSend>
      </Body>
</Envelope>"""

EXAMPLE_17_4 = """<?xml version="1.0"?>

<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>

        <AQXmlPublish xmlns = "http://ns.oracle.com/AQ/schemas/access">

          <producer_options>
            <destination>AQUSER.JMS_MAP_TOPIC</destination>
          </producer_options>

          <message_set>
            <message_count>1</message_count>        

            <message>
              <message_number>1</message_number>

              <message_header>
                        <correlation>toyota</correlation>
                        <sender_id >
                                     <agent_name>john</agent_name>
                                  </sender_id>
                        <recipient_list>
                           <recipient>
                              <agent_name>scott</agent_name>
                           </recipient>
                           <recipient>
                              <agent_name>aquser</agent_name>
                           </recipient>
                           <recipient>
                              <agent_name>jmsuser</agent_name>
                           </recipient>
                        </recipient_list>         
              </message_header>

              <message_payload>   

                  <jms_map_message> 
                    <oracle_jms_properties>
                          <reply_to>
                                       <agent_name>oracle</agent_name>
                                    </reply_to>
                         <groupid>AQ</groupid>
                       </oracle_jms_properties>

                         <user_properties>
                         <property>
                           <name>Country</name>
                           <string_value>USA</string_value>
                         </property>
                         <property>
                           <name>State</name>
                           <string_value>California</string_value>
                         </property>
                        </user_properties>

                         <map_data>
                        <item>
                       <name>Car</name>
                         <string_value>Toyota</string_value>
                        </item>
                        <item>
                          <name>Color</name>
                          <string_value>Blue</string_value>
                      </item>
                        <item>
                          <name>Price</name>
                          <int_value>20000</int_value>
                        </item>
                      </map_data>
               </jms_map_message>
             </message_payload>
            </message>
          </message_set>
           </AQXmlPublish>
      </Body>
</Envelope>"""

EXAMPLE_17_5 = """<?xml version="1.0"?>
   <Envelope  xmlns =  "http://schemas.xmlsoap.org/soap/envelope/">
   <Body> 
      <AQXmlSend xmlns = "http://ns.oracle.com/AQ/schemas/access">
        <producer_options>
          <destination>AQUSER.RAW_MSGQ</destination>
        </producer_options>
        <message_set>
          <message_count>1</message_count>  

          <message>
             <message_number>1</message_number>

                 <message_header>
                   <correlation>TKAXAS11</correlation>
                   <sender_id>
                      <agent_name>scott</agent_name>
                   </sender_id>   
                 </message_header>
                 <message_payload>
                    <RAW>426C6F622064617461202D20626C6F622064617461202D20626C6F62206461746120426C6F6
22064617461202D20626C6F622064617461202D20626C6F62206461746120426</RAW>
                 </message_payload>
               </message>
            </message_set>
          </AQXmlSend>
      </Body>
</Envelope>"""

EXAMPLE_17_6 = """<?xml version="1.0"?>
<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">

      <Body>
        <AQXmlPublish xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <producer_options>
            <destination>AQUSER.EMP_TOPIC</destination>
          </producer_options>

          <message_set>
            <message_count>1</message_count>        

            <message>
              <message_number>1</message_number>

              <message_header>
                <correlation>NEWEMP</correlation>
                <sender_id>
                   <agent_name>scott</agent_name>
                </sender_id> 
              </message_header>

              <message_payload>   
                <EMP_TYP>
                  <EMPNO>1111</EMPNO>
                        <ENAME>Mary</ENAME>
                  <MGR>5000</MGR>
                        <HIREDATE>1996-01-01 0:0:0</HIREDATE>
                  <SAL>10000</SAL>
                  <COMM>100.12</COMM>
                        <DEPTNO>60</DEPTNO>
                     </EMP_TYP>
             </message_payload>
            </message>
          </message_set>

        <AQXmlCommit/>

        </AQXmlPublish>
      </Body>
</Envelope>"""

EXAMPLE_17_7 = """<?xml version="1.0"?>

<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlReceive xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <consumer_options>
            <destination>QS.NEW_ORDERS_QUE</destination>
            <wait_time>0</wait_time>
          </consumer_options>
                </AQXmlReceive>
      </Body>
</Envelope>"""

EXAMPLE_17_8 = """<?xml version="1.0"?>
<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlReceive xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <consumer_options>
            <destination>AQUSER.EMP_TOPIC</destination>
            <consumer_name>APP1</consumer_name>
            <wait_time>0</wait_time>
            <navigation_mode>FIRST_MESSAGE</navigation_mode> 
          </consumer_options>
                </AQXmlReceive>
      </Body>
</Envelope>"""

EXAMPLE_17_9 = """<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlReceive xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <consumer_options>
            <destination>QS.NEW_ORDERS_QUE</destination>
            <wait_time>0</wait_time>
            <selector>
                 <correlation>NEW</correlation>
            </selector>
          </consumer_options>
                </AQXmlReceive>
      </Body>
</Envelope>"""

EXAMPLE_17_10 = """<?xml version="1.0"?>
<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlReceive xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <consumer_options>
            <destination>AQUSER.EMP_TOPIC</destination>
            <consumer_name>APP1</consumer_name>
            <wait_time>0</wait_time>
            <selector>
                 <condition>tab.user_data.deptno=60</condition>
            </selector>
          </consumer_options>
                </AQXmlReceive>
      </Body>
</Envelope>"""

EXAMPLE_17_11 = """<?xml version="1.0"?>

<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlReceive xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <consumer_options>
            <destination>QS.NEW_ORDERS_QUE</destination>
            <wait_time>0</wait_time>
          </consumer_options>

              <AQXmlCommit/>

                </AQXmlReceive>
      </Body>
</Envelope>"""

EXAMPLE_17_12 = """<?xml version="1.0"?>

<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>
        <AQXmlReceive xmlns = "http://ns.oracle.com/AQ/schemas/access">
          <consumer_options>
            <destination>QS.NEW_ORDERS_QUE</destination>
            <wait_time>0</wait_time>
            <dequeue_mode>BROWSE</dequeue_mode>
          </consumer_options>
           </AQXmlReceive>
      </Body>
</Envelope>"""

EXAMPLE_17_13 = """<?xml version="1.0"?>
<Envelope xmlns= "http://schemas.xmlsoap.org/soap/envelope/">
      <Body>

        <AQXmlRegister xmlns = "http://ns.oracle.com/AQ/schemas/access">

          <register_options>
            <destination>AQUSER.EMP_TOPIC</destination>
            <consumer_name>APP1</consumer_name>
            <notify_url>mailto:app1@hotmail.com</notify_url>
          </register_options>

          <AQXmlCommit/>

                </AQXmlRegister>
      </Body>
</Envelope>"""

EXAMPLE_17_14 = """<?xml version="1.0"?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <AQXmlCommit xmlns="http://ns.oracle.com/AQ/schemas/access"/>
   </Body>
</Envelope>"""

EXAMPLE_17_15 = """<?xml version="1.0"?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <AQXmlRollback xmlns="http://ns.oracle.com/AQ/schemas/access"/>
   </Body>
</Envelope>"""

EXAMPLE_17_16 = """<?xml version = '1.0'?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <AQXmlSendResponse xmlns="http://ns.oracle.com/AQ/schemas/access">
         <status_response>
            <status_code>0</status_code>
         </status_response>
         <send_result>
            <destination>QS.NEW_ORDERS_QUE</destination>
            <message_id>12341234123412341234</message_id>
         </send_result>
      </AQXmlSendResponse>
   </Body>
</Envelope>"""

EXAMPLE_17_17 = """<?xml version = '1.0'?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <AQXmlPublishResponse xmlns="http://ns.oracle.com/AQ/schemas/access">
         <status_response>
            <status_code>0</status_code>
         </status_response>
         <publish_result>
            <destination>AQUSER.EMP_TOPIC</destination>
            <message_id>23434435435456546546546546</message_id>
         </publish_result>
      </AQXmlPublishResponse>
   </Body>
</Envelope>"""

EXAMPLE_17_18 = """<?xml version = '1.0'?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <AQXmlReceiveResponse xmlns="http://ns.oracle.com/AQ/schemas/access">
         <status_response>
            <status_code>0</status_code>
         </status_response>
         <receive_result>
            <destination>AQUSER.EMP_TOPIC</destination>
            <message_set>
               <message_count>1</message_count>
               <message>
                  <message_number>1</message_number>
                  <message_header>
                     <message_id>1234344545565667</message_id>
                     <correlation>TKAXAP10</correlation>
                     <priority>1</priority>
                     <delivery_count>0</delivery_count>
                     <sender_id>
                        <agent_name>scott</agent_name>
                     </sender_id>
                     <message_state>0</message_state>
                  </message_header>
                  <message_payload>
                    <EMP_TYP>
                        <EMPNO>1111</EMPNO>
                        <ENAME>Mary</ENAME>
                            <MGR>5000</MGR>
                            <HIREDATE>1996-01-01 0:0:0</HIREDATE>
                      <SAL>10000</SAL>
                      <COMM>100.12</COMM>
                            <DEPTNO>60</DEPTNO>
                          </EMP_TYP>
                 </message_payload>
               </message>
            </message_set>
         </receive_result>
      </AQXmlReceiveResponse>
   </Body>
</Envelope>"""

EXAMPLE_17_19 = """<?xml version = '1.0'?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
<Body>
      <AQXmlReceiveResponse xmlns="http://ns.oracle.com/AQ/schemas/access">
         <status_response>
            <status_code>0</status_code>
         </status_response>
         <receive_result>
            <destination>AQUSER.JMS_TEXTQ</destination>
            <message_set>
               <message_count>1</message_count>
               <message>
                  <message_number>1</message_number>
                  <message_header>
                     <message_id>12233435454656567</message_id>
                     <correlation>TKAXAP01</correlation>
                     <delay>0</delay>
                     <priority>1</priority>
                     <message_state>0</message_state>
                     <sender_id>
                        <agent_name>scott</agent_name>
                     </sender_id>
                  </message_header>
                  <message_payload>
                     <jms_text_message>
                        <oracle_jms_properties>
                           <reply_to>
                              <agent_name>oracle</agent_name>
                              <address>redwoodshores</address>
                              <protocol>100</protocol>
                           </reply_to>
                           <userid>AQUSER</userid>
                           <appid>AQProduct</appid>
                           <groupid>AQ</groupid>
                           <timestamp>01-12-2000</timestamp>
                           <recv_timestamp>12-12-2000</recv_timestamp>
                        </oracle_jms_properties>
                        <user_properties>
                           <property>
                              <name>Country</name>
                              <string_value>USA</string_value>
                           </property>
                           <property>
                              <name>State</name>
                              <string_value>California</string_value>
                           </property>
                        </user_properties>
                        <text_data>All things bright and beautiful</text_data>
                     </jms_text_message>
                  </message_payload>
               </message>
            </message_set>
         </receive_result>
      </AQXmlReceiveResponse>
   </Body>
</Envelope>"""

EXAMPLE_17_20 = """<?xml version = '1.0'?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <AQXmlCommitResponse xmlns="http://ns.oracle.com/AQ/schemas/access">
         <status_response>
            <status_code>0</status_code>
         </status_response>
      </AQXmlCommitResponse>
   </Body>
</Envelope>"""

EXAMPLE_17_21 = """<?xml version = '1.0'?>
<Envelope xmlns="http://schemas.xmlsoap.org/soap/envelope/">
   <Body>
      <Fault xmlns="http://schemas.xmlsoap.org/soap/envelope/">
         <faultcode>100</faultcode>
         <faultstring>Server Fault</faultstring>
         <detail>
            <status_response>
               <status_code>-1</status_code>
               <error_code>410</error_code>
               <error_message>JMS-410: XML SQL Excetpion 
ORA-24031: invalid value, OWNER_NAME should be non-NULL
ORA-06512: at "SYS.DBMS_AQJMS", line 177
ORA-06512: at line 1
</error_message>
            </status_response>
         </detail>
      </Fault>
   </Body>
</Envelope>"""

import tensorflow as tf

# Incorrect: Variable created outside strategy scope
my_var = tf.Variable(0.0)

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
  model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
  model.compile(optimizer='adam', loss='mse')
  # Attempt to use the incorrectly placed variable during training
  # ...This will likely raise an AssertionError...

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
  my_var = tf.Variable(0.0) # Correct: Variable created inside strategy scope
  model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
  model.compile(optimizer='adam', loss='mse')
  # ...Training proceeds correctly...

import tensorflow as tf

strategy = tf.distribute.MirroredStrategy()

with strategy.scope():
  model = tf.keras.Sequential([tf.keras.layers.Dense(10)])
  optimizer = tf.keras.optimizers.Adam()

  def distributed_train_step(dataset_inputs):
    def step_fn(inputs):
      with tf.GradientTape() as tape:
        outputs = model(inputs[0])
        loss = tf.keras.losses.mse(inputs[1], outputs)
      grads = tape.gradient(loss, model.trainable_variables)
      optimizer.apply_gradients(zip(grads, model.trainable_variables))
    strategy.run(step_fn, args=(dataset_inputs,))

  # ... training loop using distributed_train_step ...
